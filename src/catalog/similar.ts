/**
 * Similar opportunities and idea match, on the similarity scale of similarity.ts: the
 * significant words of an opportunity's title and description, or of an idea's text, weighed by
 * their rarity; candidates found through the search index by the rarest of them; each scored
 * from 0 to 1, 1.0 for the same idea.
 */
import type { Sql } from "../db/open.ts";
import { NotFoundError } from "../platform/errors.ts";
import type { QueryContext } from "./common.ts";
import { isRowId } from "../db/rows.ts";
import { listColumns, type ListRow, toListItem } from "./opportunities.ts";
import type { IdeaMatch, IdeaQuery, SimilarList, SimilarQuery } from "./similar_schemas.ts";
import { type ThemeRow, themeSelect, toTheme } from "./themes.ts";
import {
  candidateIds,
  opportunityTerms,
  scoreCandidates,
  type Term,
  textTerms,
} from "./similarity.ts";
import { suggestionsFor } from "./suggestions.ts";
import { CONFIDENT } from "./judge.ts";

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

/** The themes and opportunities nearest to an idea described in `text`. */
export async function matchIdea(
  sql: Sql,
  query: IdeaQuery,
  ctx: QueryContext,
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
  const themeIds = [...byTheme.entries()]
    .sort(([a, x], [b, y]) => y.similarity - x.similarity || y.count - x.count || a - b)
    .slice(0, query.limit).map(([id]) => id);
  const themeRows = themeIds.length === 0 ? [] : await sql<ThemeRow[]>`
    ${themeSelect(sql)} where t.id in (select jsonb_array_elements_text(${
    JSON.stringify(themeIds)
  }::text::jsonb)::int)`;
  const themes = new Map(themeRows.map((row) => [row.id, row]));
  const confidence = rows[0]?.similarity ?? 0;
  return {
    confidence,
    suggestions: confidence < CONFIDENT && terms.length > 0
      ? await suggestionsFor(sql, terms, rows.map((r) => ({ id: r.id, relevance: r.similarity })))
      : [],
    terms: terms.filter((t) => t.df > 0).sort((a, b) =>
      b.weight - a.weight || (a.term < b.term ? -1 : 1)
    )
      .slice(0, TERMS).map((t) => t.term),
    unmatched_terms: terms.filter((t) => t.df === 0).map((t) => t.word),
    themes: themeIds.filter((id) => themes.has(id)).map((id) => ({
      ...toTheme(themes.get(id)!),
      similarity: byTheme.get(id)!.similarity,
    })),
    opportunities: rows.slice(0, query.limit).map((row) => ({
      ...toListItem(row, ctx.publicBaseUrl),
      competitors: row.competitors,
      similarity: row.similarity,
    })),
  };
}
