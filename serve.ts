/**
 * Entry point for `deno serve serve.ts` and Deno Deploy: the same service as `deno task start`,
 * with the database opened (and migrated) on the first request. main.ts does not carry this
 * default export itself because `deno run` warns about one.
 */
import { handler } from "./main.ts";

const app: Deno.ServeDefaultExport = { fetch: (request) => handler(request) };

export default app;
