/**
 * Entry point for `deno serve serve.ts` and Deno Deploy: the same service as `deno task start`,
 * with the database opened (and migrated) on the first request. main.ts does not carry this
 * default export itself because `deno run` warns about one.
 */
import { handler } from "./main.ts";

// The client's address (info) reaches the account area's per-IP mail limits.
const app: Deno.ServeDefaultExport = { fetch: (request, info) => handler(request, info) };

export default app;
