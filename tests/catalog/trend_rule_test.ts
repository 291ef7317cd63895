/** The lifecycle rule and the growth figures on synthetic weekly series, with their edges. */
import assert from "node:assert/strict";
import {
  growth,
  relativeSlope,
  thirtyDays,
  TREND_RULE,
  trendMeasures,
  trendStatus,
} from "../../src/catalog/trend_rule.ts";

/** `n` weeks around `level`, alternating ±`wobble` (a baseline with some noise). */
function flat(n: number, level: number, wobble = 5): number[] {
  return Array.from({ length: n }, (_, i) => level + (i % 2 === 0 ? -wobble : wobble));
}

Deno.test("trendStatus: an empty series has no status", () => {
  assert.equal(trendStatus([]), null);
});

Deno.test("trendStatus: each status on a series that should produce it", async (t) => {
  await t.step("steady: a flat series with noise", () => {
    assert.equal(trendStatus(flat(52, 100)), "steady");
  });
  await t.step("steady: too few mentions to tell, even when they triple", () => {
    assert.equal(trendStatus([...flat(26, 1, 0), 3, 4, 4, 4]), "steady");
  });
  await t.step("emerging: from almost nothing to a real volume", () => {
    assert.equal(trendStatus([...flat(26, 1, 0), 10, 20, 25, 30]), "emerging");
  });
  await t.step("emerging: a new theme with only recent weeks", () => {
    assert.equal(trendStatus([12, 20, 30]), "emerging");
  });
  await t.step("rising: well above its 26-week baseline and not falling", () => {
    assert.equal(trendStatus([...flat(26, 100), 120, 130, 140, 150]), "rising");
  });
  await t.step("rising: a slow steady climb of 4% a week", () => {
    const climb = Array.from({ length: 40 }, (_, i) => Math.round(100 * 1.04 ** i));
    assert.equal(trendStatus(climb), "rising");
  });
  await t.step("peaked: a spike within 13 weeks, now a quarter below it, above baseline", () => {
    assert.equal(
      trendStatus([...flat(26, 100), 200, 300, 320, 300, 260, 220, 190, 170, 160, 150]),
      "peaked",
    );
  });
  await t.step("declining: well below its baseline", () => {
    assert.equal(trendStatus([...flat(26, 100), 80, 70, 65, 60]), "declining");
  });
  await t.step("declining: after a spike, now below the baseline", () => {
    const series = [...flat(26, 100), 300, 300, 300, 300, ...flat(6, 100), 60, 60, 60, 60];
    assert.equal(trendStatus(series), "declining");
  });
});

/** Series whose last 8 weeks stay at `level` after 22 noisy weeks at 100 (slope 0 at the end). */
function plateau(level: number): number[] {
  return [...flat(22, 100, 10), ...Array(8).fill(level)];
}

Deno.test("trendStatus: the edges fall exactly on the documented thresholds", async (t) => {
  await t.step("rising from z = 2 (slope 0)", () => {
    const seen = new Set<string>();
    for (let level = 100; level <= 250; level++) {
      const series = plateau(level);
      const m = trendMeasures(series);
      assert.equal(m.slope, 0);
      const expected = m.z >= TREND_RULE.zRising ? "rising" : "steady";
      assert.equal(trendStatus(series), expected, `level ${level}, z ${m.z}`);
      seen.add(expected);
    }
    assert.deepEqual([...seen].sort(), ["rising", "steady"]);
  });
  await t.step("declining from z = -2 (slope 0)", () => {
    const seen = new Set<string>();
    for (let level = 100; level >= 0; level--) {
      const series = plateau(level);
      const m = trendMeasures(series);
      const expected = m.z <= TREND_RULE.zDeclining ? "declining" : "steady";
      assert.equal(trendStatus(series), expected, `level ${level}, z ${m.z}`);
      seen.add(expected);
    }
    assert.deepEqual([...seen].sort(), ["declining", "steady"]);
  });
  await t.step("emerging needs a baseline under the minimum volume", () => {
    const below = [...flat(26, TREND_RULE.minWeekly - 1, 0), 40, 40, 40, 40];
    const at = [...flat(26, TREND_RULE.minWeekly, 0), 40, 40, 40, 40];
    assert.equal(trendStatus(below), "emerging");
    assert.equal(trendStatus(at), "rising");
  });
  await t.step("the minimum volume: steady below it, not at it", () => {
    const low = [...flat(26, 1, 0), 4, 4, 4, 4];
    const enough = [...flat(26, 1, 0), 5, 5, 5, 5];
    assert.equal(trendStatus(low), "steady");
    assert.equal(trendStatus(enough), "emerging");
  });
  await t.step("peaked from a fall of a quarter below the peak", () => {
    const spike = [...flat(26, 100, 0), 400, 400, 400, 400, 400, 400];
    // The recent four weeks at `last`; the peak four weeks at 400 just before them.
    const at = (last: number) => [...spike, last, last, last, last];
    assert.equal(trendStatus(at(300)), "peaked");
    assert.equal(trendStatus(at(301)), "rising");
    // Fallen back to the baseline: no longer a peak, and not below it either.
    assert.equal(trendStatus(at(100)), "steady");
    assert.equal(trendStatus(at(60)), "declining");
  });
});

Deno.test("relativeSlope: per week, relative to the mean", () => {
  assert.equal(relativeSlope([10, 10, 10]), 0);
  assert.equal(relativeSlope([90, 100, 110]), 0.1);
  assert.equal(relativeSlope([110, 100, 90]), -0.1);
  assert.equal(relativeSlope([5]), 0);
});

Deno.test("growth: each window against the one before, null without enough history", () => {
  const series = [...Array(52).fill(10), ...Array(39).fill(10), ...Array(13).fill(20)];
  assert.equal(growth(series, 1), 0);
  assert.equal(growth([10, 15], 1), 50);
  assert.equal(growth(series, 13), 100);
  // 52 weeks: 39 * 10 + 13 * 20 = 650 against 520.
  assert.equal(growth(series, 52), 25);
  assert.equal(growth(series.slice(-103), 52), null);
  assert.equal(growth([0, 0, 0, 7], 1), 100);
  assert.equal(growth([0, 0, 0, 0], 2), 0);
  assert.equal(growth([3, 1], 1), -66.7);
});

Deno.test("thirtyDays: the last four weeks scaled by 30/28, and the four before", () => {
  const series = [7, 7, 7, 7, 14, 14, 14, 14];
  assert.equal(thirtyDays(series), 60);
  assert.equal(thirtyDays(series, 4), 30);
  assert.equal(thirtyDays([28]), 30);
  assert.equal(thirtyDays([28], 4), 0);
});
