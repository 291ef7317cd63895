/** threadUrl: evidence links are public threads, never a person's page. */
import assert from "node:assert/strict";
import { threadUrl } from "../../src/catalog/lists/evidence_url.ts";

Deno.test("threadUrl keeps threads and drops profiles, credentials and other schemes", async (t) => {
  await t.step("threads stay (the fragment goes)", () => {
    for (
      const url of [
        "https://www.reddit.com/r/devops/comments/abc123/",
        "https://news.ycombinator.com/item?id=40001234",
        "https://stackoverflow.com/questions/123456",
        "https://www.producthunt.com/discussions/xyz",
        "https://github.com/owner/repo/issues/12",
      ]
    ) {
      assert.equal(threadUrl(url), url);
    }
    assert.equal(
      threadUrl("https://www.reddit.com/r/saas/comments/a1/#reply-by-someone"),
      "https://www.reddit.com/r/saas/comments/a1/",
    );
  });
  await t.step("a person's page is null", () => {
    for (
      const url of [
        "https://www.reddit.com/user/someone/",
        "https://old.reddit.com/u/someone",
        "https://www.reddit.com/user/someone/comments/abc/",
        "https://news.ycombinator.com/user?id=pg",
        "https://stackoverflow.com/users/42/jane",
        "https://www.producthunt.com/@maker",
        "https://www.indiehackers.com/@founder",
        "https://x.com/handle",
        "https://github.com/octocat",
        "https://www.linkedin.com/in/jane-doe/",
        "https://example.com/%40jane",
      ]
    ) {
      assert.equal(threadUrl(url), null, url);
    }
  });
  await t.step("credentials, other schemes and junk are null", () => {
    for (
      const url of ["https://bob:pw@example.com/t/1", "javascript:alert(1)", "not a url", "", null]
    ) {
      assert.equal(threadUrl(url), null, String(url));
    }
  });
});
