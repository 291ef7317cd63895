/**
 * One-line installs of the hosted MCP endpoint, for the home page and docs/mcp.md (a test checks
 * that the page and the docs show these very lines): Claude Code's `claude mcp add` with the key
 * in a header, Cursor's install deeplink (`cursor://anysphere.cursor-deeplink/mcp/install?name=
 * &config=`, the config as base64 of its mcp.json entry, cursor.com/docs/mcp/install-links) and VS
 * Code's `code --add-mcp` (and its `vscode:mcp/install` link, the same JSON). Cursor and VS Code
 * get the URL alone: they run the OAuth sign-in the endpoint's 401 starts, so no key is written
 * into an editor's settings file. And the local stdio package, which the service serves as an npm
 * tarball (src/web/downloads.ts): `npx -y {base}/downloads/oppintel-mcp.tgz` works before the
 * package is on the npm registry, and names the package of this very deployment.
 */

/** The name clients list the server under. */
export const CLIENT_SERVER_NAME = "oppintel";

/** The placeholder of a key in the lines (tests/readme_test.ts puts a real key there). */
export const KEY_PLACEHOLDER = "oi_live_your_key_here";

/** The lines and links for a service whose public address is `base`. */
export interface InstallLines {
  /** `claude mcp add` with the key in X-API-Key (options after the URL: --header is variadic). */
  claudeCode: string;
  /** The Cursor mcp.json entry the deeplink installs. */
  cursorConfig: { url: string };
  cursorLink: string;
  /** The argument of `code --add-mcp` and of the vscode: link. */
  vscodeConfig: { name: string; type: "http"; url: string };
  vscodeCommand: string;
  vscodeLink: string;
  /** The tarball of the stdio package, as this service serves it. */
  stdioTarball: string;
  /** The client configuration (Claude Desktop, Cursor) that starts the stdio package with npx. */
  stdioConfig: {
    mcpServers: {
      oppintel: { command: "npx"; args: string[]; env: Record<string, string> };
    };
  };
}

/** The install lines of the endpoint at `{base}/mcp/`. */
export function installLines(base: string): InstallLines {
  const url = `${base}/mcp/`;
  const cursorConfig = { url };
  const vscodeConfig = { name: CLIENT_SERVER_NAME, type: "http" as const, url };
  const vscodeJson = JSON.stringify(vscodeConfig);
  const stdioTarball = `${base}/downloads/oppintel-mcp.tgz`;
  return {
    claudeCode: `claude mcp add --transport http ${CLIENT_SERVER_NAME} ${url} \\\n` +
      `  --header "X-API-Key: ${KEY_PLACEHOLDER}"`,
    cursorConfig,
    // Base64 has + / =, which a query string would turn into other characters: percent-encoded.
    cursorLink: `cursor://anysphere.cursor-deeplink/mcp/install?name=${CLIENT_SERVER_NAME}` +
      `&config=${encodeURIComponent(btoa(JSON.stringify(cursorConfig)))}`,
    vscodeConfig,
    vscodeCommand: `code --add-mcp '${vscodeJson}'`,
    vscodeLink: `vscode:mcp/install?${encodeURIComponent(vscodeJson)}`,
    stdioTarball,
    stdioConfig: {
      mcpServers: {
        [CLIENT_SERVER_NAME]: {
          command: "npx",
          args: ["-y", stdioTarball],
          env: { OPPINTEL_API_KEY: KEY_PLACEHOLDER, OPPINTEL_BASE_URL: base },
        },
      },
    },
  };
}
