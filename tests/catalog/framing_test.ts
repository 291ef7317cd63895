/**
 * withoutFraming (src/catalog/questions/framing.ts): the words that frame a question leave it, its
 * subject stays; quoted words and exclusions are kept as written; a q without framing words is
 * itself.
 */
import assert from "node:assert/strict";
import { withoutFraming } from "../../src/catalog/questions/framing.ts";

Deno.test("withoutFraming keeps a question's subject and drops its framing", async (t) => {
  const cases: [string, string][] = [
    ["what is growing in developer tools this quarter", "developer tools"],
    ["SaaS opportunities for dentists", "for dentists"],
    ["low effort side project ideas with high willingness to pay", "with"],
    ["startup ideas to quarantine flaky tests this quarter", "to quarantine flaky tests"],
    [
      "tool to help a private tutor find classroom-ready material",
      "a private tutor find classroom-ready material",
    ],
    [
      "app for small clinics who need to file insurance claim",
      "small clinics who file insurance claim",
    ],
    [
      "freelance designers struggling with chasing late invoices",
      "freelance designers chasing late invoices",
    ],
    ["Best ideas for Etsy sellers right now", "for Etsy sellers"],
    ["ideas, opportunities", ","],
  ];
  for (const [q, subject] of cases) {
    await t.step(q, () => assert.equal(withoutFraming(q), subject));
  }
  await t.step("subject words that only look like framing stay", () => {
    assert.equal(withoutFraming("startup founders"), "startup founders");
    assert.equal(withoutFraming("developer tools"), "developer tools");
  });
  await t.step("quoted words and exclusions are kept as written", () => {
    assert.equal(withoutFraming('"startup ideas" -ideas'), '"startup ideas" -ideas');
    assert.equal(withoutFraming('ideas "side project" invoices'), '"side project" invoices');
  });
  await t.step("a q without framing words is itself, white space and all", () => {
    assert.equal(withoutFraming("%  %"), "%  %");
    assert.equal(withoutFraming("to be or not"), "to be or not");
  });
});
