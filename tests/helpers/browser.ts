/** Debian's headless Chromium for the end-to-end tests, driven by playwright-core. */
import AXE_SOURCE from "axe-core/axe.min.js" with { type: "text" };
import { type BrowserContext, chromium, type Page } from "playwright-core";

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

interface AxeNode {
  target: string[];
  html: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: AxeNode[];
}

/** The serious and critical axe-core violations of the page as it is now, one line each. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  if (!await page.evaluate(() => "axe" in globalThis)) await page.evaluate(AXE_SOURCE);
  // Page code as strings: the test is type-checked without the DOM library.
  const violations: AxeViolation[] = await page.evaluate(
    `axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)`,
  );
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) =>
      `${v.impact} ${v.id} (${v.help}): ${v.nodes.length} nodes, e.g. ${v.nodes[0]?.html}`
    );
}
