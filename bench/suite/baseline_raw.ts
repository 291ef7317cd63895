/**
 * The raw baseline: a bare Deno.serve running only the page query of the list (the `limit 20`
 * select, no total) and the single-row detail select with postgres.js, with no key, quota,
 * validation, count or shaping. The service is measured against it on the same database.
 *
 * Routes: GET /list (the default list page), GET /list-filtered?platform=P&min_score=N
 * &recommendation=R (the same page query with those filters, as the service writes them),
 * GET /list-random?[platform][&min_score][&recommendation][&sort=newest]&page=N (the page query
 * of the random-filters scenario, offset included),
 * GET /detail/ID, GET / (ready check). Environment: DATABASE_URL, PORT.
 */
import postgres from "postgres";

const databaseUrl = Deno.env.get("DATABASE_URL");
if (!databaseUrl) throw new Error("DATABASE_URL is required");
// The same pool size as the service (src/db/open.ts), so neither side has more connections.
const sql = postgres(databaseUrl, { max: 10, onnotice: () => {} });

const COLUMNS = sql`
  o.id, o.platform, o.channel_name, o.title, o.slug, o.recommendation, o.score,
  o.pain_point_intensity, o.willingness_to_pay_score, o.tech_difficulty,
  o.sustainability_score, o.target_audience, o.monetization_model, o.evidence_count,
  o.merged_from_count, o.is_online_deliverable, o.created_at`;

function listPage() {
  return sql`
    select ${COLUMNS} from opportunities o where o.is_online_deliverable
    order by o.score desc, o.created_at desc, o.id desc limit 20`;
}

function filteredPage(search: URLSearchParams) {
  return sql`
    select ${COLUMNS} from opportunities o
    where o.is_online_deliverable
      and lower(o.platform) = lower(${search.get("platform") ?? ""})
      and o.score >= ${Number(search.get("min_score") ?? 0)}
      and o.recommendation = ${search.get("recommendation") ?? ""}
    order by o.score desc, o.created_at desc, o.id desc limit 20`;
}

/** The service's page query for platform, min_score, recommendation, sort and page (no count). */
function randomPage(search: URLSearchParams) {
  const platform = search.get("platform");
  const minScore = Number(search.get("min_score") ?? 0);
  const recommendation = search.get("recommendation");
  const page = Number(search.get("page") ?? 1);
  return sql`
    select ${COLUMNS} from opportunities o
    where o.is_online_deliverable
      ${platform ? sql`and lower(o.platform) = lower(${platform})` : sql``}
      ${minScore > 0 ? sql`and o.score >= ${minScore}` : sql``}
      ${recommendation ? sql`and o.recommendation = ${recommendation}` : sql``}
    ${
    search.get("sort") === "newest"
      ? sql`order by o.created_at desc, o.id desc`
      : sql`order by o.score desc, o.created_at desc, o.id desc`
  }
    limit 20 offset ${(page - 1) * 20}`;
}

async function detail(id: number): Promise<Response> {
  const [row] = await sql`select * from opportunities where id = ${id}`;
  return row ? Response.json(row) : Response.json({ error: "not_found" }, { status: 404 });
}

const port = Number(Deno.env.get("PORT") ?? "8100");
Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, async (request) => {
  const url = new URL(request.url);
  if (url.pathname === "/list") return Response.json(await listPage());
  if (url.pathname === "/list-filtered") return Response.json(await filteredPage(url.searchParams));
  if (url.pathname === "/list-random") return Response.json(await randomPage(url.searchParams));
  if (url.pathname.startsWith("/detail/")) return detail(Number(url.pathname.slice(8)));
  if (url.pathname === "/") return new Response("ok");
  return new Response("not found", { status: 404 });
});
