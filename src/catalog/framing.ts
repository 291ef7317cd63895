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
  // What a builder wants of it (the sub-scores answer these, not the words).
  "(?:low|little|minimal|high|big)\\s+(?:effort|willingness\\s+to\\s+pay|demand|pain)",
  "willingness\\s+to\\s+pay",
  "(?:easy|quick|simple)\\s+(?:to\\s+build|wins?|builds?)",
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
