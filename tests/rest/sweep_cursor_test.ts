/**
 * The cursor sweep: hand-made cursors on every list that takes one, on REST and on MCP. Each is
 * made here from its parts, independently of the service's encoder: signed with the test's
 * CURSOR_SECRET (so that it passes the mac and only the value checks stand in the way), signed
 * with another secret, in the unkeyed format of before (a digest anyone could compute), or
 * damaged. Keys out of their column's range or domain (a NUL in a slug, a score of 1.5, an id of
 * 2^31, 1e308, -0, Infinity, a position past the depth limit), wrong key counts and the cursor of
 * another list all answer 422 invalid_cursor, never 5xx, and charge nothing. Well-formed keys
 * signed with either secret of the rotation list answer 200, so the refusals are the values'.
 */
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, type TestApp, testApp, usedOf } from "../helpers/app.ts";
import { toolListing, TOOLS } from "../../src/mcp/tools.ts";
import { assertNoInternalError, mcpCallOfEra, restEndpoints } from "./sweep_helpers.ts";

const SECRET = "sweep-secret-signing-0123456789abcdefghij";
const OLD_SECRET = "sweep-secret-rotated-0123456789abcdefghij";
const FOREIGN_SECRET = "sweep-secret-unknown-0123456789abcdefghij";

type Kind = "score" | "sub" | "id" | "us" | "rank" | "slug" | "at";

/** A key of each kind that fits, as raw JSON. */
const FITTING: Record<Kind, string> = {
  score: "50",
  sub: "5",
  id: "1",
  us: '"1777000000000000"',
  rank: "0.5",
  slug: '"ci-analysis"',
  at: "1",
};

const NUMBER_JUNK = ["null", "true", "[]", "{}", '"1"', '"NaN"', "1e308", "1e999", "-1e999", "-0"];

/** Keys of each kind that do not fit, as raw JSON (1e999 parses as Infinity). */
const MISFITS: Record<Kind, string[]> = {
  score: [...NUMBER_JUNK, "1.5", "101", "-1", "2147483648", "9007199254740993"],
  sub: [...NUMBER_JUNK, "1.5", "11", "-1", "-10", "100", "2147483648"],
  id: [...NUMBER_JUNK, "1.5", "0", "-1", "2147483648", "9007199254740993"],
  at: [...NUMBER_JUNK, "1.5", "0", "-1", "10001", "2147483648", "9007199254740993"],
  rank: [...NUMBER_JUNK.filter((v) => v !== "-0"), "-0", "-1", "1e-50", "1e7", "2147483648"],
  us: [
    '"a\\u0000b"',
    '"1.5"',
    '"-0"',
    '"007"',
    '""',
    '"1e308"',
    '"100000000000000000"',
    '"99999999999999999999"',
    '" 1"',
    '"NaN"',
    "1777000000000000",
    "null",
  ],
  slug: [
    '"a\\u0000b"',
    '"ci-analysis\\u0000"',
    '"\\u001b[31m"',
    '"A-B"',
    '"a--b"',
    '"a b"',
    '"\\u202etxt"',
    '""',
    `"${"a".repeat(201)}"`,
    "5",
    "null",
  ],
};

/** A list that takes a cursor: its request, and the key shapes its cursors may have. */
interface List {
  name: string;
  path: string;
  tool: string;
  args: Record<string, string | number | boolean>;
  shapes: Kind[][];
}

const LISTS: List[] = [
  {
    name: "opportunities by score",
    path: "/api/v1/opportunities",
    tool: "query_opportunities",
    args: { online_only: false, page_size: 1 },
    shapes: [["score", "us", "id"]],
  },
  {
    // The same keys as the list by score: only the scope tells their cursors apart.
    name: "opportunities of a theme",
    path: "/api/v1/opportunities",
    tool: "query_opportunities",
    args: { online_only: false, page_size: 1, theme: "flaky-ci" },
    shapes: [["score", "us", "id"]],
  },
  {
    name: "opportunities by newest",
    path: "/api/v1/opportunities",
    tool: "query_opportunities",
    args: { online_only: false, page_size: 1, sort: "newest" },
    shapes: [["us", "id"]],
  },
  {
    name: "opportunities by a sub-score",
    path: "/api/v1/opportunities",
    tool: "query_opportunities",
    args: { online_only: false, page_size: 1, sort: "pain_point_intensity" },
    shapes: [["sub", "score", "us", "id"]],
  },
  {
    name: "opportunities easiest first, sub-score bounds",
    path: "/api/v1/opportunities",
    tool: "query_opportunities",
    args: {
      online_only: false,
      page_size: 1,
      sort: "tech_difficulty",
      max_tech_difficulty: 9,
      min_sustainability: 1,
    },
    shapes: [["sub", "score", "us", "id"]],
  },
  {
    name: "opportunities, a question",
    path: "/api/v1/opportunities",
    tool: "query_opportunities",
    args: { online_only: false, page_size: 1, q: "flaky" },
    shapes: [["at"], ["score", "us", "id"]],
  },
  {
    name: "opportunities, a question by score",
    path: "/api/v1/opportunities",
    tool: "query_opportunities",
    args: { online_only: false, page_size: 1, q: "flaky", sort: "score" },
    shapes: [["score", "us", "id"]],
  },
  {
    name: "opportunities, a best match",
    path: "/api/v1/opportunities",
    tool: "query_opportunities",
    args: { online_only: false, page_size: 1, q: "flaky invoice" },
    shapes: [["at"], ["score", "us", "id"]],
  },
  {
    name: "blog",
    path: "/api/v1/blog",
    tool: "list_blog_posts",
    args: { page_size: 1 },
    shapes: [["us", "slug"]],
  },
  {
    name: "blog, a best match",
    path: "/api/v1/blog",
    tool: "list_blog_posts",
    args: { page_size: 1, q: "flaky invoices" },
    shapes: [["at"], ["us", "slug"]],
  },
];

function base64url(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64url(text: string): string {
  const bytes = Uint8Array.from(
    atob(text.replaceAll("-", "+").replaceAll("_", "/")),
    (c) => c.charCodeAt(0),
  );
  return new TextDecoder().decode(bytes);
}

/** A cursor of the service's format around a payload given as raw JSON text. */
function signed(payload: string, secret = SECRET): string {
  const body = base64url(payload);
  const mac = createHmac("sha256", secret).update(`oi-cursor:${body}`).digest()
    .subarray(0, 16).toString("base64url");
  return `${body}.${mac}`;
}

/** The payload of keys (raw JSON) in a list's scope. */
function payloadOf(keys: string[], scope: string): string {
  return `{"v":2,"k":[${keys.join(",")}],"s":${JSON.stringify(scope)}}`;
}

/**
 * A cursor as the service made them before it had a secret: its check was a digest anyone can
 * compute, so anyone could make one with any keys.
 */
function unkeyed(keys: string[], scope: string): string {
  const body = JSON.parse(`{"v":1,"k":[${keys.join(",")}],"s":${JSON.stringify(scope)}}`);
  const check = createHash("sha256").update(`oi-cursor:${JSON.stringify(body)}`)
    .digest("base64url").slice(0, 22);
  return base64url(JSON.stringify({ ...body, c: check }));
}

function query(args: Record<string, string | number | boolean>, cursor?: string): string {
  const params = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)]));
  if (cursor !== undefined) params.set("cursor", cursor);
  return params.toString();
}

/** Every hostile cursor for a list whose cursors are in `scope`, with what it is. */
function hostileCursors(list: List, scope: string): [string, string][] {
  const out: [string, string][] = [];
  for (const shape of list.shapes) {
    const fitting = shape.map((kind) => FITTING[kind]);
    shape.forEach((kind, i) => {
      for (const misfit of MISFITS[kind]) {
        const keys = fitting.with(i, misfit);
        out.push([`${kind} ${misfit.slice(0, 40)} in [${shape}]`, signed(payloadOf(keys, scope))]);
        out.push([`unkeyed, ${kind} ${misfit.slice(0, 40)}`, unkeyed(keys, scope)]);
      }
    });
    out.push([`[${shape}] and one key more`, signed(payloadOf([...fitting, "1"], scope))]);
    out.push([`[${shape}] less its last key`, signed(payloadOf(fitting.slice(0, -1), scope))]);
    out.push([
      `[${shape}] signed with an unknown secret`,
      signed(payloadOf(fitting, scope), FOREIGN_SECRET),
    ]);
    out.push([`[${shape}] in the unkeyed format`, unkeyed(fitting, scope)]);
  }
  const fitting = list.shapes[0].map((kind) => FITTING[kind]);
  const good = signed(payloadOf(fitting, scope));
  out.push(
    ["no keys", signed(payloadOf([], scope))],
    ["version 1", signed(payloadOf(fitting, scope).replace('"v":2', '"v":1'))],
    ["keys not a list", signed(`{"v":2,"k":"1","s":${JSON.stringify(scope)}}`)],
    ["no scope", signed(`{"v":2,"k":[${fitting}]}`)],
    ["a number for scope", signed(`{"v":2,"k":[${fitting}],"s":5}`)],
    ["a payload that is not JSON", signed("not json")],
    ["a JSON list for payload", signed("[1,2]")],
    ["a NUL in the payload", signed(`{"v":2,"k":[${fitting}],"s":"\u0000"}`)],
    ["another list's scope", signed(payloadOf(fitting, "AAAAAAAAAAAAAAAAAAAAAA"))],
    ["the mac cut short", good.slice(0, -1)],
    ["the mac of another payload", `${good.split(".")[0]}x.${good.split(".")[1]}`],
    ["no mac", good.split(".")[0]],
    ["two dots", `${good}.x`],
    ["not base64url", "!!!.!!!"],
    ["a lone dot", "."],
  );
  // A keyset cursor of the relevance order on a question's list (only the export walks those).
  if (scope.endsWith(":question")) {
    const keyset = scope.replace(/:question$/, "");
    out.push(["relevance keyset", signed(payloadOf(["0.5", "50", FITTING.us, "1"], keyset))]);
  }
  return out;
}

async function restAnswer(app: TestApp, key: string, list: List, cursor: string) {
  const res = await app.get(`${list.path}?${query(list.args, cursor)}`, key);
  const body = await assertNoInternalError(res, `${list.name}: ${res.status}`);
  return { status: res.status, body: body as Record<string, unknown> };
}

async function mcpAnswer(
  app: TestApp,
  key: string,
  list: List,
  cursor: string,
  era: "2025" | "2026",
) {
  const res = await mcpCallOfEra(app, key, era, list.tool, { ...list.args, cursor });
  const body = await assertNoInternalError(res, `${list.tool}: ${res.status}`) as {
    result?: { isError?: boolean; structuredContent?: Record<string, unknown> };
  };
  assert.equal(res.status, 200, list.tool);
  return body.result!;
}

Deno.test("every list that takes a cursor is swept here", () => {
  const restLists = restEndpoints()
    .filter((e) => e.parameters.some((p) => p.name === "cursor"))
    .map((e) => e.path);
  assert.deepEqual(restLists.sort(), [...new Set(LISTS.map((l) => l.path))].sort());
  const tools = TOOLS.map(toolListing)
    .filter((t) =>
      Object.hasOwn((t.inputSchema as { properties?: object }).properties ?? {}, "cursor")
    )
    .map((t) => t.name);
  assert.deepEqual(tools.sort(), [...new Set(LISTS.map((l) => l.tool))].sort());
});

dbTest(
  "hand-made cursors on every list, REST and MCP: 422 invalid_cursor, never 5xx, uncharged",
  async (db, t) => {
    const app = testApp(db, { CURSOR_SECRET: `${SECRET},${OLD_SECRET}` });
    await loadFixture(db.sql);
    const { key, accountId } = await makeKey(db.sql, "business");
    const firsts = new Map<List, string>();
    for (const list of LISTS) {
      const res = await app.get(`${list.path}?${query(list.args)}`, key);
      assert.equal(res.status, 200, list.name);
      const cursor = (await res.json()).next_cursor;
      assert.equal(typeof cursor, "string", `${list.name} has a second page`);
      firsts.set(list, cursor);
    }
    for (const list of LISTS) {
      await t.step(list.name, async () => {
        const first = firsts.get(list)!;
        const scope: string = JSON.parse(fromBase64url(first.split(".")[0])).s;
        // Well-formed keys signed here, with the signing secret or the rotated one, continue
        // the list: so every refusal below is the refusal of a value, not of the signature.
        for (const shape of list.shapes) {
          for (const secret of [SECRET, OLD_SECRET]) {
            const cursor = signed(payloadOf(shape.map((k) => FITTING[k]), scope), secret);
            const { status, body } = await restAnswer(app, key, list, cursor);
            assert.equal(status, 200, `[${shape}]: ${JSON.stringify(body)}`);
            const result = await mcpAnswer(app, key, list, cursor, "2025");
            assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
          }
        }
        const others = LISTS.filter((l) => query(l.args) !== query(list.args))
          .map((l): [string, string] => [`the cursor of ${l.name}`, firsts.get(l)!]);
        const used = await usedOf(db.sql, accountId);
        let i = 0;
        for (const [what, cursor] of [...hostileCursors(list, scope), ...others]) {
          const rest = await restAnswer(app, key, list, cursor);
          assert.equal(rest.status, 422, `REST ${what}: ${JSON.stringify(rest.body)}`);
          assert.equal(rest.body.error, "invalid_cursor", `REST ${what}`);
          assert.equal(rest.body.param, "cursor", `REST ${what}`);
          const result = await mcpAnswer(app, key, list, cursor, i++ % 2 ? "2026" : "2025");
          assert.equal(result.isError, true, `MCP ${what}`);
          assert.equal(result.structuredContent?.error, "invalid_cursor", `MCP ${what}`);
        }
        assert.equal(await usedOf(db.sql, accountId), used, "no refusal was charged");
      });
    }
  },
);
