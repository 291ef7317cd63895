/**
 * The words that frame a question rather than say its subject (docs/rest.md, "Reading a
 * question"): "ideas", "opportunities", "startup ideas", "tools for", "this quarter", "what is
 * growing in", "side project", "low effort", "struggling with", "wants to" ... They are taken out
 * of `q` before it is matched and ranked, so that "what is growing in developer tools this
 * quarter" is a question about developer tools, not about quarterly taxes, and "SaaS
 * opportunities for dentists" one about dentists. Only outside quotes and never after a dash:
 * what a user quoted or excluded is kept as written. Pure.
 */

// Each entry is a phrase of whole words, case ignored; `s?` and alternatives cover word forms.
const FRAMING: string[] = [
  // What the catalogue is made of: every row is an idea, an opportunity, a product to build.
  // What a builder wants of it, read as filters (FILTERS below).
  "(?:low|little|minimal)\\s+effort",
  "(?:easy|quick|simple)\\s+(?:to\\s+build|wins?|builds?)",
  "(?:high\\s+|strong\\s+)?willingness\\s+to\\s+pay",
  "(?:people|customers|users|clients)\\s+(?:will|would)\\s+(?:happily\\s+)?pay(?:\\s+for)?",
  "pays?\\s+well",
  "(?:a\\s+)?(?:big|high|severe|real)\\s+pain(?:\\s+points?)?",
  "painful",
  "(?:what|which)\\s+(?:can|could|should|would)\\s+i\\s+build",
  "(?:(?:micro[- ]?)?saas|startup|business|product|app|software|side|online|niche|indie)\\s+" +
  "(?:ideas?|opportunit(?:y|ies)|projects?|hustles?|niches?)",
  "ideas?",
  "opportunit(?:y|ies)",
  "niches?",
  "side\\s+(?:projects?|hustles?|business(?:es)?)",
  // How a question asks: what is growing, trending, worth building.
  "what(?:'s|\\s+is|\\s+are)?\\s+(?:growing|trending|hot|new|rising|popular|emerging)" +
  "(?:\\s+(?:in|for|among|around))?",
  "(?:growing|trending|rising|emerging|hot|popular|promising|profitable|lucrative|untapped)",
  "(?:best|top|good|great)\\s+(?:ideas?|opportunit(?:y|ies)|things?)",
  "(?:things?|stuff)\\s+to\\s+build",
  "(?:what|something)\\s+(?:to|i\\s+(?:can|could|should))\\s+build",
  "(?:worth|to)\\s+build(?:ing)?",
  "in\\s+demand",
  // When: the catalogue is now.
  "(?:this|next|last|the\\s+current)\\s+(?:quarter|year|month|week)",
  "(?:right\\s+now|these\\s+days|nowadays|in\\s+20\\d\\d)",
  "(?:high|big)\\s+demand",
  // Who asks and how.
  "(?:tools?|apps?|software|solutions?|products?|services?)\\s+(?:for|to\\s+help)",
  "(?:struggling|struggles?|struggled)\\s+with",
  "(?:wants?|needs?|wanting|needing)\\s+to",
  "(?:looking|searching)\\s+for",
  "(?:how|what)\\s+(?:can|could|do|does|should|to)",
  "(?:is|are)\\s+there(?:\\s+any)?",
  "(?:help\\s+me|i\\s+want|i\\s+need|show\\s+me|give\\s+me|find\\s+me|tell\\s+me\\s+about)",
  "(?:any|some)\\s+(?:ideas?|opportunit(?:y|ies))",
];

const PATTERN = new RegExp(
  `(^|[\\s(,;:!?])(?:${FRAMING.map((f) => `(?:${f})`).join("|")})(?=$|[\\s),;:!?.])`,
  "gi",
);

/** Filters a question asks for in framing words (FILTERS), and what else framed it. */
export interface Framing {
  filters: {
    max_tech_difficulty?: number;
    min_willingness_to_pay?: number;
    min_pain_point_intensity?: number;
  };
  /** "growing", "trending", "rising": only themes whose mentions go up. */
  growing: boolean;
  /** Framing phrases that became a filter, as written. */
  used: string[];
  /** Framing phrases that changed nothing ("ideas", "what could I build"), as written. */
  ignored: string[];
}

/**
 * Framing phrases that ask for a filter, and its bound: "low effort" for the easier half of the
 * difficulty scale (0-10), "willingness to pay" and "painful" for the upper third.
 */
const FILTERS: [RegExp, keyof Framing["filters"] | "growing", number][] = [
  [/effort|easy|quick|simple/i, "max_tech_difficulty", 4],
  [/pay/i, "min_willingness_to_pay", 7],
  [/pain/i, "min_pain_point_intensity", 7],
  [/growing|trending|rising|emerging|hot|popular/i, "growing", 1],
];

/** The framing phrases of `q` outside quotes, as written, and the filters they ask for. */
export function readFraming(q: string): Framing {
  const framing: Framing = { filters: {}, growing: false, used: [], ignored: [] };
  const outside = q.split('"').filter((_, i) => i % 2 === 0).join(" ");
  for (let n = 0, text = outside; n < 2; n++) {
    PATTERN.lastIndex = 0;
    for (const match of text.matchAll(PATTERN)) {
      const phrase = match[0].slice(match[1].length).trim();
      const filter = FILTERS.find(([pattern]) => pattern.test(phrase));
      if (!filter) framing.ignored.push(phrase);
      else {
        framing.used.push(phrase);
        if (filter[1] === "growing") framing.growing = true;
        else framing.filters[filter[1]] = filter[2];
      }
    }
    text = text.replace(PATTERN, (_m, before) => `${before} `);
  }
  return framing;
}

/**
 * `q` without its framing words (outside quotes, not after a dash), white space tidied; `q`
 * itself when it has none. Empty when it had nothing else.
 */
export function withoutFraming(q: string): string {
  PATTERN.lastIndex = 0;
  if (!PATTERN.test(q)) return q;
  const parts = q.split('"');
  // Even parts are outside quotes; an unclosed quote runs to the end, as searchUnits reads it.
  const kept = parts.map((part, i) => {
    if (i % 2 === 1) return part;
    // Twice: a framing phrase can start where the previous one ended ("ideas growing").
    let text = part;
    for (let n = 0; n < 2; n++) text = text.replace(PATTERN, (_m, before) => `${before} `);
    return text;
  });
  return kept.join('"').replace(/\s+/g, " ").trim();
}
