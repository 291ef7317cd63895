/** Debian's headless Chromium for the end-to-end tests, driven by playwright-core. */
import { type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/** True when Chromium is installed (.ci/run installs it); browser tests are ignored otherwise. */
export const hasChromium: boolean = (() => {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
})();

/**
 * Launches Chromium headless in a fresh profile, with the background networking that this
 * closed network would refuse turned off. `close()` also removes the profile.
 */
export async function launchChromium(
  options: { viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const userDataDir = await Deno.makeTempDir({ prefix: "oi-chromium-" });
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: options.viewport,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    },
  };
}
