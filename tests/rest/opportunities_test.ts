/** GET /api/v1/opportunities and /opportunities/{id}: parameters, filters, order, shapes. */
import assert from "node:assert/strict";
import { dbTest } from "../helpers/db.ts";
import { bumpDataVersion, loadFixture, makeKey, testApp } from "../helpers/app.ts";
import { OpportunityDetailSchema, OpportunityListSchema } from "../../src/catalog/schemas.ts";

const LIST_FIELDS = [
  "channel_name",
  "created_at",
  "evidence_count",
  "id",
  "is_online_deliverable",
  "merged_from_count",
  "monetization_model",
  "pain_point_intensity",
  "platform",
  "recommendation",
  "score",
  "slug",
  "sustainability_score",
  "target_audience",
  "tech_difficulty",
  "title",
  "url",
  "willingness_to_pay_score",
];

dbTest(
  "GET /api/v1/opportunities: 422 for every bad parameter, one details entry each",
  async (db, t) => {
    const app = testApp(db);
    const { key } = await makeKey(db.sql, "pro");
    const cases: [string, string, string][] = [
      ["min_score=101", "min_score", "must be at most 100"],
      ["min_score=-1", "min_score", "must be at least 0"],
      ["min_score=1.5", "min_score", "must be an integer"],
      ["min_score=1e2", "min_score", "must be an integer"],
      ["min_score=abc", "min_score", "must be an integer"],
      ["page=0", "page", "must be at least 1"],
      ["page_size=0", "page_size", "must be at least 1"],
      ["page_size=101", "page_size", "must be at most 100"],
      ["online_only=maybe", "online_only", "must be true or false"],
      ["recommendation=Maybe", "recommendation", "must be one of Build, Validate, Skip"],
      [`q=${"a".repeat(101)}`, "q", "must be at most 100 characters"],
      ["page=1&page=2", "page", "must be given only once"],
    ];
    for (const [query, param, message] of cases) {
      await t.step(query.slice(0, 40), async () => {
        const res = await app.get(`/api/v1/opportunities?${query}`, key);
        assert.equal(res.status, 422);
        assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
        const body = await res.json();
        assert.equal(body.error, "invalid_parameter");
        assert.equal(typeof body.message, "string");
        assert.deepEqual(body.details, [{ param, message }]);
      });
    }
    await t.step("several bad parameters give several details", async () => {
      const res = await app.get("/api/v1/opportunities?min_score=101&page_size=0&page=x", key);
      const body = await res.json();
      assert.deepEqual(body.details.map((d: { param: string }) => d.param).sort(), [
        "min_score",
        "page",
        "page_size",
      ]);
    });
  },
);

dbTest("GET /api/v1/opportunities: filters, order, paging and shape", async (db, t) => {
  const app = testApp(db);
  const ids = await loadFixture(db.sql);
  const { key } = await makeKey(db.sql, "pro");
  const list = async (query: string) => {
    const res = await app.get(`/api/v1/opportunities${query}`, key);
    assert.equal(res.status, 200, query);
    assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    const body = await res.json();
    OpportunityListSchema.parse(body);
    return body as {
      items: { id: number; [k: string]: unknown }[];
      total: number;
      page: number;
      page_size: number;
      match: string;
    };
  };
  const idsOf = (items: { id: number }[]) => items.map((i) => i.id);
  const byExt = (...ext: string[]) => ext.map((e) => ids[e]);

  await t.step("defaults: online only, score desc then created_at desc, page 1 of 20", async () => {
    const body = await list("");
    // opp-4 is not online-deliverable; opp-2 and opp-3 tie on 75, opp-3 is newer.
    assert.deepEqual(idsOf(body.items), byExt("opp-1", "opp-3", "opp-2", "opp-5", "opp-6"));
    assert.equal(body.total, 5);
    assert.equal(body.page, 1);
    assert.equal(body.page_size, 20);
  });
  await t.step("list items carry exactly the list fields, no detail-only ones", async () => {
    const body = await list("");
    assert.deepEqual(Object.keys(body.items[0]).sort(), LIST_FIELDS);
    for (const item of body.items) {
      assert.equal(item.url, `https://oppintel.example/opportunities/${item.id}/${item.slug}`);
    }
    assert.match(
      String(body.items[0].created_at),
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
    );
  });
  await t.step("online_only=false includes offline ideas; booleans in any case", async () => {
    assert.equal((await list("?online_only=false")).total, 6);
    assert.equal((await list("?online_only=FALSE")).total, 6);
    assert.equal((await list("?online_only=0")).total, 6);
    assert.equal((await list("?online_only=True")).total, 5);
  });
  await t.step("platform matches case-insensitively", async () => {
    const reddit = byExt("opp-1", "opp-3", "opp-6");
    assert.deepEqual(idsOf((await list("?platform=reddit")).items), reddit);
    assert.deepEqual(idsOf((await list("?platform=REDDIT")).items), reddit);
  });
  await t.step("channel matches case-sensitively", async () => {
    assert.deepEqual(idsOf((await list("?channel=SaaS")).items), byExt("opp-6"));
    assert.equal((await list("?channel=saas")).total, 0);
  });
  await t.step("min_score is inclusive", async () => {
    assert.deepEqual(idsOf((await list("?min_score=75")).items), byExt("opp-1", "opp-3", "opp-2"));
  });
  await t.step("recommendation in any case filters on the canonical verdict", async () => {
    const body = await list("?recommendation=validate");
    assert.deepEqual(idsOf(body.items), byExt("opp-2", "opp-5"));
    assert.ok(body.items.every((i) => i.recommendation === "Validate"));
  });
  await t.step("category filters through themes", async () => {
    assert.deepEqual(
      idsOf((await list("?category=small-business&online_only=false")).items),
      byExt("opp-3", "opp-4"),
    );
    assert.equal((await list("?category=nope")).total, 0);
  });
  await t.step("q: every word as a word prefix, any case, title or description", async () => {
    assert.deepEqual(idsOf((await list("?q=FLAKY")).items), byExt("opp-1", "opp-2"));
    assert.deepEqual(idsOf((await list("?q=daily%20invoice")).items), byExt("opp-3"));
    // No row has both words: best match answers the rows with either, match any.
    const either = await list("?q=invoice%20kubernetes");
    assert.equal(either.match, "any");
    assert.deepEqual(idsOf(either.items), byExt("opp-3"));
    // "pain" appears only in the descriptions.
    assert.equal((await list("?q=pain")).total, 5);
    // A prefix of a word matches; a piece from its middle does not.
    assert.deepEqual(idsOf((await list("?q=quarant")).items), byExt("opp-2"));
    assert.equal((await list("?q=uarantine")).total, 0);
  });
  await t.step("q: punctuation splits words and never fails", async () => {
    assert.deepEqual(idsOf((await list("?q=100%25")).items), byExt("opp-2"));
    assert.deepEqual(idsOf((await list("?q=with_underscore")).items), byExt("opp-5"));
    assert.deepEqual(idsOf((await list("?q=docs_freshness")).items), byExt("opp-5"));
    for (const q of ["%25", "%5C", "_", "--", "-", "%22", "OR", "%F0%9F%99%82"]) {
      assert.equal((await list(`?q=${q}`)).total, 0, `q=${q} has no word and matches nothing`);
    }
  });
  await t.step("empty parameters are absent, unknown ones ignored", async () => {
    assert.equal((await list("?min_score=&platform=&q=&foo=bar")).total, 5);
  });
  await t.step("paging: pages, the last page, a page past the end", async () => {
    const p1 = await list("?page_size=2");
    const p2 = await list("?page_size=2&page=2");
    const p3 = await list("?page_size=2&page=3");
    const p4 = await list("?page_size=2&page=4");
    assert.deepEqual(
      [...idsOf(p1.items), ...idsOf(p2.items), ...idsOf(p3.items)],
      idsOf((await list("")).items),
    );
    assert.equal(p3.items.length, 1);
    assert.deepEqual(p4.items, []);
    assert.equal(p4.total, 5);
    assert.equal(p4.page, 4);
  });
});

dbTest(
  "GET /api/v1/opportunities/{id}: detail, evidence scrubbed on read, related article",
  async (db, t) => {
    const app = testApp(db);
    const ids = await loadFixture(db.sql);
    const { key } = await makeKey(db.sql, "free");

    await t.step("the detail has every field of the specification", async () => {
      const res = await app.get(`/api/v1/opportunities/${ids["opp-1"]}`, key);
      assert.equal(res.status, 200);
      const body = await res.json();
      OpportunityDetailSchema.parse(body);
      for (
        const f of [
          ...LIST_FIELDS,
          "description",
          "market_size_estimate",
          "key_features",
          "competitors",
          "differentiation",
          "risks",
          "related_article_url",
          "evidence",
        ]
      ) {
        assert.ok(f in body, f);
      }
      assert.equal(body.id, ids["opp-1"]);
      assert.deepEqual(body.key_features, ["One", "Two"]);
      assert.equal(body.url, `https://oppintel.example/opportunities/${ids["opp-1"]}/${body.slug}`);
      assert.equal(body.related_article_url, "https://oppintel.example/blog/ci-analysis");
    });
    await t.step("evidence quotes are scrubbed again on read", async () => {
      // Written before scrubbing existed: straight into the table.
      await db.sql`
      insert into evidence_quotes (opportunity_id, platform, channel_name, quote, posted_at)
      values (${
        ids["opp-1"]
      }, 'reddit', 'devops', 'ping @raw_handle or raw@example.org', '2026-04-02T00:00:00Z')`;
      await bumpDataVersion(db.sql);
      const body = await (await app.get(`/api/v1/opportunities/${ids["opp-1"]}`, key)).json();
      assert.equal(body.evidence.length, 2);
      assert.equal(body.evidence[0].posted_at, "2026-04-02T00:00:00.000Z", "newest first");
      const text = JSON.stringify(body.evidence);
      assert.ok(!text.includes("@raw_handle") && !text.includes("raw@example.org"), text);
      assert.ok(
        !text.includes("u/someone") && !text.includes("bob@example.com") && !text.includes("555"),
        text,
      );
      assert.ok(text.includes("[user]"));
    });
    await t.step(
      "no published article: related_article_url is null (drafts do not count)",
      async () => {
        const body = await (await app.get(`/api/v1/opportunities/${ids["opp-2"]}`, key)).json();
        assert.equal(body.related_article_url, null);
      },
    );
    await t.step(
      "a non-integer id is 422; an integer naming nothing is 404 not_found",
      async () => {
        for (const bad of ["abc", "1.5", "1e2"]) {
          assert.equal((await app.get(`/api/v1/opportunities/${bad}`, key)).status, 422, bad);
        }
        for (const none of ["0", "-3", "999999", "99999999999"]) {
          const res = await app.get(`/api/v1/opportunities/${none}`, key);
          assert.equal(res.status, 404, none);
          assert.equal((await res.json()).error, "not_found");
        }
      },
    );
  },
);
