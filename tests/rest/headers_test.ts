/**
 * The IETF RateLimit fields, Retry-After and X-Request-Id. The RateLimit fields are
 * parsed with the grammar of RFC 8941 (Structured Field Values) that
 * draft-ietf-httpapi-ratelimit-headers-11 builds on: each field is an sf-list of Items whose
 * bare item is the policy name (a String or Token) and whose parameters are keys with Integer
 * values: q (quota) and w (window, seconds) on RateLimit-Policy, r (remaining) and t (seconds to
 * reset) on RateLimit.
 */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { loadFixture, makeKey, setUsed, testApp } from "../helpers/app.ts";

type Item = { value: string; params: Record<string, number | string | boolean> };

/** RFC 8941 section 4.2: parse an sf-list of items (no inner lists), strictly. */
function parseSfList(input: string): Item[] {
  let i = 0;
  const s = input.replace(/^ +| +$/g, "");
  const fail = (why: string): never => {
    throw new Error(`Not an sf-list at ${i} (${why}): ${input}`);
  };
  const key = () => {
    if (!/[a-z*]/.test(s[i] ?? "")) fail("key");
    const start = i;
    while (i < s.length && /[a-z0-9_\-.*]/.test(s[i])) i++;
    return s.slice(start, i);
  };
  const bare = (): string | number | boolean => {
    if (s[i] === '"') {
      let out = "";
      i++;
      while (i < s.length) {
        const c = s[i++];
        if (c === "\\") {
          if (s[i] !== '"' && s[i] !== "\\") fail("escape");
          out += s[i++];
        } else if (c === '"') return out;
        else if (c < " " || c > "~") fail("string character");
        else out += c;
      }
      return fail("unterminated string");
    }
    if (/[-0-9]/.test(s[i] ?? "")) {
      const m = /^-?\d{1,15}(?![.\d])/.exec(s.slice(i));
      if (!m) return fail("integer");
      i += m[0].length;
      return Number(m[0]);
    }
    if (s[i] === "?") {
      i++;
      const b = s[i++];
      return b === "1" ? true : b === "0" ? false : fail("boolean");
    }
    if (/[A-Za-z*]/.test(s[i] ?? "")) {
      const m = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/.exec(s.slice(i))!;
      i += m[0].length;
      return m[0];
    }
    return fail("bare item");
  };
  const items: Item[] = [];
  while (i < s.length) {
    const value = bare();
    if (typeof value !== "string") fail("policy name must be a string or token");
    const params: Item["params"] = {};
    while (s[i] === ";") {
      i++;
      while (s[i] === " ") i++;
      const k = key();
      params[k] = s[i] === "=" ? (i++, bare()) : true;
    }
    items.push({ value: value as string, params });
    while (s[i] === " " || s[i] === "\t") i++;
    if (i >= s.length) break;
    if (s[i] !== ",") fail("expected a comma");
    i++;
    while (s[i] === " " || s[i] === "\t") i++;
    if (i >= s.length) fail("trailing comma");
  }
  if (items.length === 0) fail("empty list");
  return items;
}

Deno.test("the sf-list parser of this test refuses what RFC 8941 refuses", () => {
  for (
    const bad of [
      "",
      "monthly;q=1.5x",
      '"monthly";q=',
      '"monthly";Q=5',
      '"monthly",',
      '"monthly" "x"',
      "'monthly';q=1",
      '"month\nly";q=1',
      '"monthly";q=1234567890123456',
    ]
  ) assert.throws(() => parseSfList(bad), Error, JSON.stringify(bad));
  assert.deepEqual(parseSfList('"monthly";q=20;w=2592000, burst;q=5'), [
    { value: "monthly", params: { q: 20, w: 2592000 } },
    { value: "burst", params: { q: 5 } },
  ]);
});

function rateLimitOf(res: Response) {
  const [policy] = parseSfList(res.headers.get("ratelimit-policy") ?? "");
  const [limit] = parseSfList(res.headers.get("ratelimit") ?? "");
  return { policy, limit };
}

dbTest("RateLimit-Policy and RateLimit follow the draft's grammar", async (db, t) => {
  const app = testApp(db);
  const ids = await loadFixture(db.sql);
  const { key, accountId } = await makeKey(db.sql, "free");

  await t.step("a charged answer names the monthly policy, its quota and window", async () => {
    const res = await app.get("/api/v1/overview", key);
    assert.equal(res.status, 200);
    const { policy, limit } = rateLimitOf(res);
    assert.equal(policy.value, "monthly");
    assert.equal(limit.value, policy.value, "RateLimit refers to the policy by name");
    assert.equal(policy.params.q, 20);
    const now = new Date();
    const days = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
    assert.equal(policy.params.w, days * 86_400);
    assert.equal(limit.params.r, 19);
    const toReset = (Date.parse(res.headers.get("x-quota-reset")!) - Date.now()) / 1000;
    assert.ok(Math.abs((limit.params.t as number) - toReset) <= 2, `t=${limit.params.t}`);
    assert.ok(Number.isInteger(limit.params.t) && (limit.params.t as number) >= 0);
  });
  await t.step("the browser may read them (CORS)", async () => {
    const res = await app.get("/api/v1/categories", key);
    const exposed = res.headers.get("access-control-expose-headers") ?? "";
    for (const name of ["RateLimit-Policy", "RateLimit", "Retry-After", "X-Request-Id"]) {
      assert.ok(exposed.includes(name), name);
    }
    assert.ok(rateLimitOf(res).limit.params.r === 19);
  });
  await t.step("429 carries r=0 and Retry-After in seconds to the reset", async () => {
    await setUsed(db.sql, accountId, 20);
    // Not the overview again: that would be a repeat, free (issue 49).
    const res = await app.get(`/api/v1/opportunities/${ids["opp-1"]}`, key);
    assert.equal(res.status, 429);
    assert.equal(rateLimitOf(res).limit.params.r, 0);
    const retry = res.headers.get("retry-after") ?? "";
    assert.match(retry, /^\d+$/, "delay-seconds (RFC 9110 section 10.2.3)");
    assert.equal(Number(retry), rateLimitOf(res).limit.params.t);
  });
  await t.step("MCP answers carry them too", async () => {
    const res = await app.handler(
      new Request("http://oppintel.test/mcp/", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "X-API-Key": key,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    assert.equal(res.status, 200);
    assert.equal(rateLimitOf(res).policy.params.q, 20);
    assert.equal(rateLimitOf(res).limit.params.r, 0);
  });
  await t.step("answers without a key have no RateLimit fields", async () => {
    const res = await app.get("/api/v1/overview");
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("ratelimit"), null);
  });
});

dbTest(
  "X-Request-Id: echoed when well formed, else made; in logs and error bodies",
  async (db, t) => {
    const app = testApp(db);
    await loadFixture(db.sql);
    const { key } = await makeKey(db.sql, "free");
    const withId = (id: string) => ({ headers: { "X-Request-Id": id } });

    await t.step("a well-formed incoming id is echoed and logged", async () => {
      const res = await app.get("/api/v1/categories", key, withId("abc-123.def:9_Z"));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-request-id"), "abc-123.def:9_Z");
      assert.equal(app.logs.at(-1)?.request_id, "abc-123.def:9_Z");
    });
    await t.step("without one, each answer gets a fresh UUID", async () => {
      const a = (await app.get("/api/v1/categories", key)).headers.get("x-request-id");
      const b = (await app.get("/healthz")).headers.get("x-request-id");
      assert.match(a ?? "", /^[0-9a-f-]{36}$/);
      assert.match(b ?? "", /^[0-9a-f-]{36}$/);
      assert.notEqual(a, b);
      assert.equal(app.logs.at(-1)?.request_id, b);
    });
    await t.step("a malformed or overlong id is replaced, never echoed", async () => {
      for (
        const bad of [
          "a".repeat(129),
          "id with spaces",
          "x\u00e9",
          "a,b",
          '"quoted"',
          "<script>",
          "%0d%0aSet-Cookie:x=1",
        ]
      ) {
        const res = await app.get("/api/v1/categories", key, withId(bad));
        const id = res.headers.get("x-request-id") ?? "";
        assert.notEqual(id, bad);
        assert.match(id, /^[0-9a-f-]{36}$/);
        assert.equal(res.headers.get("set-cookie"), null);
      }
      const longest = "b".repeat(128);
      const res = await app.get("/api/v1/categories", key, withId(longest));
      assert.equal(res.headers.get("x-request-id"), longest);
    });
    await t.step("every JSON error body carries request_id", async () => {
      const cases: [string, string | undefined, number][] = [
        ["/api/v1/opportunities/1", undefined, 401],
        ["/api/v1/opportunities", key, 403],
        ["/api/v1/opportunities/abc", key, 422],
        ["/api/v1/opportunities/999999", key, 404],
        ["/api/v1/nothing", key, 404],
      ];
      for (const [path, k, status] of cases) {
        const res = await app.get(path, k, withId("support-42"));
        assert.equal(res.status, status, path);
        assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
        const body = await res.json();
        assert.equal(body.request_id, "support-42", path);
        assert.equal(typeof body.error, "string");
      }
    });
    await t.step("MCP: in error.data of a JSON-RPC error and in isError tool results", async () => {
      const post = (k: string | undefined, body: unknown) => {
        const headers: Record<string, string> = {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "X-Request-Id": "mcp-7",
        };
        if (k) headers["X-API-Key"] = k;
        return app.handler(
          new Request("http://oppintel.test/mcp/", {
            method: "POST",
            headers,
            body: JSON.stringify(body),
          }),
        );
      };
      const unauth = await post(undefined, { jsonrpc: "2.0", id: 1, method: "tools/list" });
      assert.equal(unauth.status, 401);
      assert.equal((await unauth.json()).error.data.request_id, "mcp-7");
      const call = await post(key, {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "query_opportunities", arguments: {} },
      });
      assert.equal(call.headers.get("x-request-id"), "mcp-7");
      const { result } = await call.json();
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent.error, "plan_required");
      assert.equal(result.structuredContent.request_id, "mcp-7");
    });
  },
);
