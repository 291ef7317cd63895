/**
 * Demo titles, distinct by construction. A title is one choice of theme, audience (one of the
 * theme's), job, outcome, product (one of the category's) and template: a "combination". Every
 * template uses every slot, so two combinations never give the same text (the rules test checks
 * all of them). Opportunity i takes combination perm_q(i mod N), where N is the number of
 * combinations (about 26,000), q = floor(i / N) and perm_q a seeded permutation: the first N
 * opportunities are N different combinations in a shuffled order, and each later round repeats
 * them with its own place after the audience ("plumbers in Leeds"). A theme's share of the
 * opportunities is its share of the combinations.
 */
import { CATEGORIES, type DemoCategory, type DemoTheme, PLACES, TITLES } from "./demo_words.ts";
import { mix, permute } from "./demo_random.ts";

export interface ThemeInfo {
  theme: DemoTheme;
  category: DemoCategory;
  /** The number of title combinations of the theme: its share of the opportunities. */
  weight: number;
}

/** What a title is made of. */
export interface TitleChoice {
  info: ThemeInfo;
  audience: string;
  job: string;
  outcome: string;
  product: string;
  /** The place of rounds after the first, with its market region. */
  place?: { name: string; region: string };
  title: string;
}

function combinations(category: DemoCategory, theme: DemoTheme): number {
  return theme.audiences.length * theme.jobs.length * theme.outcomes.length *
    category.products.length * TITLES.length;
}

/** Every theme with its category and number of combinations, in the order of CATEGORIES. */
export function titleThemes(): ThemeInfo[] {
  return CATEGORIES.flatMap((category) =>
    category.themes.map((theme) => ({ theme, category, weight: combinations(category, theme) }))
  );
}

/** Fills `{key}` and `{Key}` (capitalized) slots of a template. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const lower = key.charAt(0).toLowerCase() + key.slice(1);
    const value = String(values[lower] ?? values[key] ?? `{${key}}`);
    return key === lower ? value : value.charAt(0).toUpperCase() + value.slice(1);
  });
}

/** "A AI assistant" -> "An AI assistant": the article of a filled template follows the next word. */
export function withArticles(text: string): string {
  return text.replace(/\b([Aa]) (?=[aeiouAEIOU])/g, (_, a: string) => `${a}n `);
}

/** The title of combination `c` (0 <= c < the sum of the themes' weights) and round `round`. */
export function titleOf(themes: ThemeInfo[], c: number, round: number): TitleChoice {
  let info = themes[themes.length - 1];
  for (const t of themes) {
    if (c < t.weight) {
      info = t;
      break;
    }
    c -= t.weight;
  }
  const { theme, category } = info;
  const digit = (size: number) => {
    const d = c % size;
    c = Math.floor(c / size);
    return d;
  };
  const template = TITLES[digit(TITLES.length)];
  const product = category.products[digit(category.products.length)];
  const outcome = theme.outcomes[digit(theme.outcomes.length)];
  const job = theme.jobs[digit(theme.jobs.length)];
  const audience = theme.audiences[digit(theme.audiences.length)];
  let place: TitleChoice["place"];
  let who = audience;
  if (round > 0) {
    const [city, region] = PLACES[(round - 1) % PLACES.length];
    // Past every place (about 1.4 million rows), a numbered group keeps the titles apart.
    const group = Math.floor((round - 1) / PLACES.length);
    place = { name: group ? `${city} (group ${group + 1})` : city, region };
    who = `${audience} in ${place.name}`;
  }
  const title = withArticles(fill(template, { product, audience: who, job, outcome }));
  return { info, audience, job, outcome, product, place, title };
}

/** The title of opportunity i of a seed: combination perm_round(i mod N) of round i div N. */
export function titleAt(seed: number, i: number, themes: ThemeInfo[], total: number): TitleChoice {
  const round = Math.floor(i / total);
  return titleOf(themes, permute(i % total, total, mix(seed, -1000 - round)), round);
}
