/**
 * Questions for reading a question by its meaning: written by hand, for calibrating and measuring
 * a sentence encoder against the demo data (src/ingest/demo_words.ts). Three kinds:
 * - `other`: four questions per theme (160), as a person or an agent would type them to find
 *   product ideas for that theme's problem, written away from the theme's own words (its name,
 *   summary, titles and jobs): synonyms, the situation, the consequence, who suffers. Each is
 *   answered by its one theme and by no other. None repeats bench/questions/paraphrases.ts.
 * - `outside`: forty needs the catalogue does not cover at all (no theme, audience or job names
 *   them), theme null. None repeats tests/helpers/outside_questions.ts.
 * - `framed`: forty questions that add framing words ("low effort", "people will pay for",
 *   "painful", "trending", a category named in words) to a subject in other words, labelled with
 *   the theme and with the filters and order those words ask for.
 *
 * Split once: `dev`, the half a method may be calibrated and tuned on; `heldOut`, the half only
 * measured. `other`: a theme's first and third questions are dev, its second and fourth held
 * out; `outside` and `framed`: dev and held out in turn, in the order written.
 *
 * Written before any method was tuned on it. It must not be edited to fit a method: a question
 * a method gets wrong stays as written, with its label.
 */

import { OTHER } from "./meaning_other.ts";

export interface LabelledQuestion {
  q: string;
  /** The theme slug that answers it; null for a question the catalogue does not cover. */
  theme: string | null;
  half: "dev" | "heldOut";
  kind: "other" | "outside" | "framed";
  /** kind framed only: the filters/order its framing words ask for (see below). */
  framing?: {
    max_tech_difficulty?: true;
    min_willingness_to_pay?: true;
    min_pain_point_intensity?: true;
    growing?: true;
    category?: string;
  };
}

type Framing = NonNullable<LabelledQuestion["framing"]>;

// What the framing phrases ask for: "low effort", "easy to build", "quick win": the least
// difficult; "high willingness to pay", "people will pay for", "customers pay well": the most
// willing to pay; "painful", "big pain": the most painful; "growing", "trending", "rising": themes
// trending up; a category named in words ("in developer tools"): that category's slug.
const EASY: Framing = { max_tech_difficulty: true };
const PAYS: Framing = { min_willingness_to_pay: true };
const PAIN: Framing = { min_pain_point_intensity: true };
const GROWING: Framing = { growing: true };
/** A category named in words, with what the other framing words ask for. */
const IN = (category: string, framing: Framing): Framing => ({ ...framing, category });

/** Needs that no theme, audience or job covers: dev and held out in turn. */
const OUTSIDE: string[] = [
  "orchestra librarians keeping track of sheet music parts",
  "ferry timetable changes reaching island commuters",
  "what could I build for amateur theatre groups sourcing costumes",
  "archaeologists cataloguing finds on a dig",
  "mountain rescue teams sharing a lost hiker's last position",
  "glassblowers controlling kiln temperatures",
  "scuba divers logging dive depths and decompression stops",
  "app for library patrons renewing borrowed books",
  "cyclists avoiding potholes on the way to work",
  "blood banks matching donor types to hospital needs",
  "storm chasers sharing radar snapshots",
  "port operators cutting container dwell time",
  "antique dealers authenticating vintage furniture",
  "horse owners finding a farrier nearby",
  "falconers tracking their birds with GPS tags",
  "independent cinemas choosing which films to show",
  "marathon organisers handing out race bibs",
  "village councils polling residents on new bike lanes",
  "stamp collectors valuing rare stamps",
  "ski resorts monitoring avalanche risk",
  "food banks collecting surplus bread from bakeries",
  "travellers checking visa rules for a layover",
  "zookeepers planning enrichment activities for animals",
  "home solar owners noticing panel output loss",
  "electric car drivers finding working chargers on road trips",
  "birdwatchers identifying songs by sound",
  "mushroom foragers telling safe species from poisonous ones",
  "model railway hobbyists wiring their layouts",
  "rowing clubs measuring stroke rate",
  "auction houses taking remote bids by phone",
  "recycling centres sorting mixed plastics",
  "ham radio operators logging contacts",
  "tailors sourcing rare fabrics",
  "election volunteers counting paper ballots",
  "perfumers balancing scent formulas",
  "escape room owners designing new puzzles",
  "cheesemakers monitoring ripening in caves",
  "vintage car restorers finding discontinued parts",
  "lifeguards watching rip currents on busy beaches",
  "aquarium hobbyists keeping water chemistry stable",
];

/** The theme, what the framing words ask for and the question: dev and held out in turn. */
const FRAMED: [theme: string, framing: Framing, q: string][] = [
  // Finance & Billing
  ["late-invoices", EASY, "low effort ideas for freelancers whose clients take months to pay up"],
  ["receipt-capture", PAYS, "people will pay for a way to stop losing proof of business spending"],
  [
    "cash-flow-forecasting",
    IN("finance-ops", PAIN),
    "painful problems in finance and billing: not knowing if the money lasts till summer",
  ],
  ["multi-currency-payouts", EASY, "quick win for agencies billing abroad and losing money on FX"],
  // Developer Tools
  ["flaky-ci", IN("developer-tools", GROWING), "trending developer tools: flip-flopping checks"],
  ["api-monitoring", PAYS, "customers pay well to know when an upstream service quietly changes"],
  ["secrets-sprawl", EASY, "easy to build ideas so ex-staff can't reach our prod logins"],
  [
    "local-dev-environments",
    PAIN,
    "big pain: would-be contributors stuck installing our open source repo",
  ],
  // Marketing & Growth
  ["content-decay", GROWING, "rising ideas around evergreen pages sliding down Google"],
  [
    "social-scheduling",
    IN("marketing-growth", EASY),
    "low effort ideas in marketing and growth for founders too busy to tweet",
  ],
  ["cold-outreach-deliverability", PAYS, "high willingness to pay: sales emails nobody ever sees"],
  ["newsletter-growth", GROWING, "rising ideas for email writers whose readership has flatlined"],
  // E-commerce
  ["inventory-sync", IN("ecommerce", PAIN), "painful in e-commerce: orders for items already gone"],
  ["returns-handling", PAYS, "people will pay for fewer parcels coming back to my clothing shop"],
  ["product-photos", EASY, "quick win ideas for Etsy sellers whose listings look homemade"],
  [
    "abandoned-carts",
    IN("ecommerce", GROWING),
    "trending e-commerce ideas to win back shoppers who walk away at the last step",
  ],
  // Productivity & Collaboration
  ["meeting-overload", PAIN, "big pain: a week of back-to-back calls with nothing decided"],
  ["async-standups", EASY, "easy to build ideas to replace a global team's morning video call"],
  [
    "stale-internal-docs",
    IN("productivity", PAYS),
    "ideas in productivity and collaboration people will pay for: how-to pages nobody trusts",
  ],
  ["client-portals", GROWING, "growing ideas for agencies tired of sending customers attachments"],
  // Health & Wellness
  ["appointment-no-shows", PAIN, "painful problems for physios whose patients just don't come"],
  [
    "client-progress-tracking",
    EASY,
    "low effort ideas for online fitness coaches with weigh-ins everywhere",
  ],
  [
    "practice-paperwork",
    IN("health-wellness", PAYS),
    "health and wellness ideas customers pay well for: therapists drowning in clinical write-ups",
  ],
  ["habit-tracking", GROWING, "trending ideas so coaching clients keep up tiny rituals"],
  // Education & Learning
  ["grading-load", PAIN, "big pain for English teachers: a pile of compositions to correct"],
  [
    "course-completion",
    IN("education", PAYS),
    "education and learning ideas with high willingness to pay: learners quitting halfway",
  ],
  ["tutoring-logistics", EASY, "quick win for one-to-one teachers drowning in texts to fix a time"],
  ["lesson-planning", GROWING, "rising ideas for teachers who prepare every class from scratch"],
  // Local Services & Property
  [
    "job-quoting",
    IN("local-services", PAYS),
    "local services ideas people will pay for: landscapers guessing what to charge",
  ],
  ["tenant-maintenance", EASY, "easy to build ideas for landlords drowning in repair calls"],
  ["review-management", GROWING, "growing ideas for cleaners losing calls over one-star ratings"],
  ["crew-scheduling", PAIN, "painful: which landscaping van goes to which house each day"],
  // HR & Recruiting
  [
    "candidate-screening",
    IN("hr-recruiting", PAYS),
    "HR and recruiting ideas with high willingness to pay: a flood of bot-written résumés",
  ],
  ["employee-onboarding", EASY, "low effort ideas so a new starter's first morning isn't chaos"],
  [
    "contractor-compliance",
    GROWING,
    "trending ideas for startups worried their overseas freelancers count as staff",
  ],
  ["time-off-tracking", EASY, "quick wins for people ops: absences nobody sees coming"],
  // Data & AI
  [
    "spreadsheet-chaos",
    IN("data-ai", PAIN),
    "painful in data and AI: Excel models that are quietly wrong",
  ],
  ["llm-cost-control", PAYS, "customers pay well for taming a runaway GPT spend"],
  ["dashboard-sprawl", IN("data-ai", GROWING), "growing in data and AI: unexplained KPI swings"],
  [
    "document-extraction",
    { ...EASY, ...PAYS },
    "low effort high willingness to pay ideas for teams keying in paperwork from photocopies",
  ],
];

const inTurn = (i: number): LabelledQuestion["half"] => i % 2 === 0 ? "dev" : "heldOut";

/** Every labelled question: in other words, outside the catalogue, then framed. */
export const MEANING_SET: LabelledQuestion[] = [
  ...Object.entries(OTHER).flatMap(([theme, qs]) =>
    qs.map((q, i): LabelledQuestion => ({ q, theme, half: inTurn(i), kind: "other" }))
  ),
  ...OUTSIDE.map((q, i): LabelledQuestion => ({
    q,
    theme: null,
    half: inTurn(i),
    kind: "outside",
  })),
  ...FRAMED.map(([theme, framing, q], i): LabelledQuestion => ({
    q,
    theme,
    half: inTurn(i),
    kind: "framed",
    framing,
  })),
];
