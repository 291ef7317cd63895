/**
 * The static baseline: a bare Deno.serve answering a constant JSON document, the ceiling of
 * HTTP on this machine with this load generator. Environment: PORT.
 */
const BODY = JSON.stringify({ status: "ok", items: [], total: 0 });

const port = Number(Deno.env.get("PORT") ?? "8101");
Deno.serve(
  { hostname: "127.0.0.1", port, onListen: () => {} },
  () => new Response(BODY, { headers: { "content-type": "application/json" } }),
);
