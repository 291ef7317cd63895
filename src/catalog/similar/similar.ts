/**
 * src/catalog/similar/: similar opportunities and idea match (this file), with their parameter
 * and answer schemas (similar_schemas.ts); they judge their answers as questions are judged.
 *
 * Similar opportunities and idea match, on the similarity scale of similarity.ts: the
 * significant words of an opportunity's title and description, or of an idea's text, weighed by
 * their rarity; candidates found through the search index by the rarest of them; each scored
 * from 0 to 1, 1.0 for the same idea.
 */
import type { Sql } from "../../db/open.ts";
import { NotFoundError } from "../../platform/errors.ts";
import type { QueryContext } from "../common.ts";
import { isRowId } from "../../db/rows.ts";
import { listColumns, type ListRow, toListItem } from "../lists/opportunities.ts";
import type { IdeaMatch, IdeaQuery, SimilarList, SimilarQuery } from "./similar_schemas.ts";
import { type ThemeRow, themeSelect, toTheme } from "../themes/themes.ts";
import {
  candidateIds,
  opportunityTerms,
  scoreCandidates,
  type Term,
  textTerms,
} from "../questions/similarity.ts";
import { suggestionsFor } from "../questions/suggestions.ts";
import { CONFIDENT } from "../questions/judge.ts";
import type { Meaning } from "../meaning/reading.ts";
import { calibrated } from "../meaning/calibration.ts";

/** Matched words an idea match names (`terms`), heaviest first. */
export const TERMS = 12;
/** Similar opportunities answered at most. */
export const SIMILAR_MAX = 100;

type Scored = ListRow & { similarity: number; competitors: string[]; theme_id: number };

/** The nearest opportunities to the text of `terms`, as list rows, best first. */
async function nearest(
  sql: Sql,
  terms: Term[],
  options: { source?: number; limit: number },
): Promise<Scored[]> {
  const ids = await candidateIds(sql, terms, options.source);
  const near = await scoreCandidates(sql, terms, ids, options.limit);
  if (near.length === 0) return [];
  const rows = await sql<(Omit<Scored, "similarity">)[]>`
    select ${listColumns(sql)}, o.competitors, o.theme_id from opportunities o
    where o.id in (select jsonb_array_elements_text(${
    JSON.stringify(near.map((n) => n.id))
  }::text::jsonb)::int)`;
  const byId = new Map(rows.map((row) => [row.id, row]));
  return near.filter((n) => byId.has(n.id)).map((n) => ({
    ...byId.get(n.id)!,
    similarity: n.similarity,
  }));
}

/** The opportunities nearest to opportunity `id` (404 when there is none), paged. */
export async function findSimilar(
  sql: Sql,
  query: SimilarQuery,
  ctx: QueryContext,
): Promise<SimilarList> {
  const { id } = query;
  if (!isRowId(id)) throw new NotFoundError(`Cannot find opportunity ${id}`);
  const [found] = await sql<{ id: number }[]>`select id from opportunities where id = ${id}`;
  if (!found) throw new NotFoundError(`Cannot find opportunity ${id}`);
  const terms = await opportunityTerms(sql, id);
  const rows = await nearest(sql, terms, { source: id, limit: SIMILAR_MAX });
  const start = (query.page - 1) * query.page_size;
  return {
    confidence: rows[0]?.similarity ?? 0,
    items: rows.slice(start, start + query.page_size).map((row) => ({
      ...toListItem(row, ctx.publicBaseUrl),
      similarity: row.similarity,
    })),
    total: rows.length,
    page: query.page,
    page_size: query.page_size,
  };
}

/**
 * The themes and opportunities nearest to an idea described in `text`. With `meaning` (the
 * idea read by the sentence encoder, src/catalog/meaning/), the themes are ordered by the
 * probability that they answer it, from their nearest opportunity's similarity and their
 * nearness to the idea (meaning/calibration.ts), and a theme near in meaning joins those whose
 * opportunities share its words.
 */
export async function matchIdea(
  sql: Sql,
  query: IdeaQuery,
  ctx: QueryContext,
  options: { meaning?: Meaning } = {},
): Promise<IdeaMatch> {
  const terms = await textTerms(sql, query.text);
  const rows = await nearest(sql, terms, { limit: SIMILAR_MAX });
  // A theme is as near as its nearest opportunity (ties: more of its opportunities near).
  const byTheme = new Map<number, { similarity: number; count: number }>();
  for (const row of rows) {
    const seen = byTheme.get(row.theme_id);
    if (seen) seen.count++;
    else byTheme.set(row.theme_id, { similarity: row.similarity, count: 1 });
  }
  const answers = themeAnswers(byTheme, terms, options.meaning);
  const themeIds = [...answers.entries()]
    .sort(([a, x], [b, y]) =>
      y - x || (byTheme.get(b)?.count ?? 0) - (byTheme.get(a)?.count ?? 0) || a - b
    )
    .slice(0, query.limit).map(([id]) => id);
  for (const id of themeIds) {
    if (!byTheme.has(id)) byTheme.set(id, { similarity: 0, count: 0 });
  }
  const themeRows = themeIds.length === 0 ? [] : await sql<ThemeRow[]>`
    ${themeSelect(sql)} where t.id in (select jsonb_array_elements_text(${
    JSON.stringify(themeIds)
  }::text::jsonb)::int)`;
  const themes = new Map(themeRows.map((row) => [row.id, row]));
  // With meaning, the best theme's probability may say more than the nearest opportunity.
  const confidence = Math.max(rows[0]?.similarity ?? 0, answers.get(themeIds[0]) ?? 0);
  return {
    confidence,
    suggestions: confidence < CONFIDENT && terms.length > 0
      ? await suggestionsFor(sql, terms, {
        best: rows.map((r) => ({ id: r.id, relevance: r.similarity })),
        base: ctx.publicBaseUrl,
      })
      : [],
    terms: terms.filter((t) => t.df > 0).sort((a, b) =>
      b.weight - a.weight || (a.term < b.term ? -1 : 1)
    )
      .slice(0, TERMS).map((t) => t.term),
    unmatched_terms: terms.filter((t) => t.df === 0).map((t) => t.word),
    themes: themeIds.filter((id) => themes.has(id)).map((id) => ({
      ...toTheme(themes.get(id)!, ctx.publicBaseUrl),
      similarity: byTheme.get(id)!.similarity,
    })),
    opportunities: rows.slice(0, query.limit).map((row) => ({
      ...toListItem(row, ctx.publicBaseUrl),
      competitors: row.competitors,
      similarity: row.similarity,
    })),
  };
}

/**
 * How well each theme answers an idea: its nearest opportunity's similarity; read by meaning,
 * the calibrated probability from that similarity and the theme's nearness (the first themes by
 * nearness join those found by words).
 */
function themeAnswers(
  byTheme: Map<number, { similarity: number }>,
  terms: Term[],
  meaning: Meaning | undefined,
): Map<number, number> {
  if (!meaning) return new Map([...byTheme].map(([id, t]) => [id, t.similarity]));
  const first = meaning.themes[0]?.[1] ?? 0;
  const margin = first - (meaning.themes[1]?.[1] ?? first);
  const weight = terms.reduce((s, t) => s + t.weight, 0) || 1;
  const unmatched = terms.filter((t) => t.df === 0).reduce((s, t) => s + t.weight, 0) / weight;
  const near = new Map(meaning.themes);
  const ids = new Set([
    ...byTheme.keys(),
    ...meaning.themes.slice(0, NEAR_THEMES).map(([id]) => id),
  ]);
  return new Map([...ids].map((id) => {
    const n = near.get(id) ?? 0;
    const lexical = byTheme.get(id)?.similarity ?? 0;
    return [id, calibrated({ lexical, near: n, gap: n - first, unmatched, margin })];
  }));
}

/** Themes near in meaning that an idea match considers beside those found by words. */
const NEAR_THEMES = 5;
