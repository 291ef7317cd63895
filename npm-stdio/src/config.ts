/**
 * The package's whole configuration, read once from the environment: the API key (required)
 * and the service's base address.
 */

/** Where the service listens when OPPINTEL_BASE_URL is not set: `deno task start` on its default port. */
export const DEFAULT_BASE_URL = "http://localhost:8000";

/** The configuration the tools need. */
export interface StdioConfig {
  apiKey: string;
  /** Base address without a trailing slash and without /api/v1. */
  baseUrl: string;
}

/** Reads the configuration; returns an error message for a person instead when it is unusable. */
export function readStdioConfig(
  env: Record<string, string | undefined>,
): { config: StdioConfig } | { error: string } {
  const apiKey = env.OPPINTEL_API_KEY?.trim();
  if (!apiKey) {
    return {
      error: "oppintel-mcp: OPPINTEL_API_KEY is not set. Set it to your Opportunity Intelligence " +
        'API key in the "env" block of your MCP client configuration',
    };
  }
  const raw = env.OPPINTEL_BASE_URL?.trim() || DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { error: `oppintel-mcp: OPPINTEL_BASE_URL is not a valid URL: "${raw}"` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      error: `oppintel-mcp: OPPINTEL_BASE_URL must start with http:// or https://: "${raw}"`,
    };
  }
  // People often paste the API address; accept it rather than calling /api/v1/api/v1.
  const baseUrl = (url.origin + url.pathname).replace(/\/+$/, "").replace(/\/api\/v1$/, "");
  return { config: { apiKey, baseUrl } };
}
