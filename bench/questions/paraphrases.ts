/**
 * Questions "in other words" of `deno task bench:relevance`: for each theme of the demo data
 * (src/ingest/demo_words.ts), three questions as a person would type them, written away from the
 * data's words (another way of saying the theme's problem), each judged with the theme that
 * answers it. A first-ten slot is right when it holds an opportunity of that theme.
 *
 * Written by hand before any method was designed for them, and never edited to fit one. Split
 * once: `dev`, the half a method may be tuned on; `heldOut`, the half only measured (the theme's
 * index plus the question's index, even or odd: every theme has questions in both halves).
 */

/** One question in other words and the theme slug that answers it. */
export interface Paraphrase {
  q: string;
  theme: string;
}

const WRITTEN: Record<string, [string, string, string]> = {
  "late-invoices": [
    "clients who never pay me on time",
    "customers ignoring my bills for weeks",
    "how do I get money owed to my studio without nagging",
  ],
  "receipt-capture": [
    "I lose my paper slips from business lunches",
    "keeping track of what I spent for my taxes is a mess",
    "tool to photograph till slips and log spending",
  ],
  "cash-flow-forecasting": [
    "will my company have enough money in the bank next month",
    "predict how long my savings last before I run out",
    "estimate what I owe the IRS each quarter",
  ],
  "multi-currency-payouts": [
    "bank charges eating my earnings from overseas clients",
    "sending money to freelancers in other countries is a pain",
    "exchange rate losses when customers pay in euros",
  ],
  "flaky-ci": [
    "unit tests that pass sometimes and fail other times",
    "our build server takes forever to go green",
    "which change broke the main branch",
  ],
  "api-monitoring": [
    "vendor changed their json response and my app crashed",
    "get alerted when an external service I depend on changes",
    "integration partner endpoints getting slower",
  ],
  "secrets-sprawl": [
    "passwords and tokens pasted in slack",
    "someone committed our aws credentials to github",
    "who on the team has access to the prod database password",
  ],
  "local-dev-environments": [
    "new engineers take days to get the code running on their laptop",
    "fake customer records to develop against",
    "temporary staging site for every pull request",
  ],
  "content-decay": [
    "articles that used to rank on google now get no visitors",
    "my old website pages no longer show up in search results",
    "where does my site appear on google for certain searches",
  ],
  "social-scheduling": [
    "posting the same thing on twitter linkedin and instagram every day",
    "turn a long article into a bunch of tweets",
    "which social media updates actually bring new customers",
  ],
  "cold-outreach-deliverability": [
    "my sales emails land in junk folders",
    "prospecting messages that don't feel like mass mail",
    "protect my company's email reputation when mailing strangers",
  ],
  "newsletter-growth": [
    "get more people to subscribe to my email digest",
    "advertisers for my small mailing list",
    "readers keep leaving my weekly email",
  ],
  "inventory-sync": [
    "I sold something I no longer had because amazon and ebay disagree",
    "keep product quantities the same on all the sites I sell on",
    "when should I order more from my supplier",
  ],
  "returns-handling": [
    "customers sending back orders costs me too much",
    "people who buy clothes wear them and send them back",
    "offer store credit instead of money back",
  ],
  "product-photos": [
    "my item pictures look amateur",
    "make a white backdrop behind my product pictures",
    "photos of my products being used in real homes",
  ],
  "abandoned-carts": [
    "shoppers leave checkout without buying",
    "customers bail when they see delivery fees",
    "chat with website visitors who are unsure about buying",
  ],
  "meeting-overload": [
    "too many calls on my calendar every week",
    "nobody remembers what we decided in yesterday's call",
    "automatic recap of zoom calls with to-dos",
  ],
  "async-standups": [
    "daily check-in with a team in different countries",
    "find out what everyone worked on without a morning call",
    "notice when a teammate is stuck",
  ],
  "stale-internal-docs": [
    "our company handbook is full of old information",
    "the answer was in a chat thread months ago and nobody can find it",
    "knowledge base nobody maintains",
  ],
  "client-portals": [
    "one place for customers to see project files",
    "get sign-off from customers on designs",
    "customers keep emailing asking for project status",
  ],
  "appointment-no-shows": [
    "patients who don't turn up for their visit",
    "empty slots when someone backs out on the day",
    "charge clients upfront when they reserve a session",
  ],
  "client-progress-tracking": [
    "see how my gym clients improve over months",
    "send workout plans to clients between visits",
    "weekly questionnaire for my coaching clients",
  ],
  "practice-paperwork": [
    "writing up therapy notes after each client takes hours",
    "getting reimbursed by health insurers",
    "patient forms that meet privacy rules",
  ],
  "habit-tracking": [
    "help my clients stick to their routine every day",
    "log how patients sleep and feel",
    "keep people motivated between coaching calls",
  ],
  "grading-load": [
    "marking student papers every weekend",
    "writing comments on homework takes forever",
    "students using chatgpt to cheat on written work",
  ],
  "course-completion": [
    "learners drop out of my online class after the first lesson",
    "nudge students who stopped watching videos",
    "create a forum for people taking my program",
  ],
  "tutoring-logistics": [
    "booking lessons with pupils and their parents",
    "charge parents for prepaid bundles of sessions",
    "send parents a summary of what we covered",
  ],
  "lesson-planning": [
    "preparing classes takes my whole sunday",
    "worksheets I can use tomorrow in class",
    "same topic for strong and struggling students",
  ],
  "job-quoting": [
    "give customers a price while still at their house",
    "homeowners never get back to me after I price a repair",
    "how much to charge for a bathroom repair",
  ],
  "tenant-maintenance": [
    "renters texting me about broken heaters at all hours",
    "send a handyman to fix a leak in my rental",
    "let residents know when the repair is scheduled",
  ],
  "review-management": [
    "get more five star ratings on google",
    "respond to an angry customer comment on yelp",
    "see what people say about my business online",
  ],
  "crew-scheduling": [
    "assign workers to jobs each day",
    "timesheets for workers at customer sites",
    "shortest driving order for the day's visits",
  ],
  "candidate-screening": [
    "too many resumes for one opening",
    "applicants using AI to fake their skills",
    "booking calls with job seekers",
  ],
  "employee-onboarding": [
    "first day checklist for new staff",
    "get new employees to sign their contracts",
    "laptops ready for people starting next week",
  ],
  "contractor-compliance": [
    "is my freelancer legally an employee",
    "W-8BEN forms from overseas workers",
    "employing someone abroad without breaking tax law",
  ],
  "time-off-tracking": [
    "who is on vacation next week",
    "staff requesting days off by email",
    "vacation days each employee has left",
  ],
  "spreadsheet-chaos": [
    "excel files full of errors",
    "combine exports from different tools into one sheet",
    "wrong totals in our budget workbook",
  ],
  "llm-cost-control": [
    "openai bills getting too expensive",
    "which AI model gives the best answers for the price",
    "stop paying twice for the same chatbot question",
  ],
  "dashboard-sprawl": [
    "charts for my business without writing queries",
    "why did our sales drop last week",
    "email a summary of key numbers every monday",
  ],
  "document-extraction": [
    "get tables out of scanned files",
    "typing data from paperwork into the computer by hand",
    "sort incoming paperwork automatically",
  ],
};

/** Every question with its half: dev (tuned on) or held-out (only measured). */
export const PARAPHRASES: (Paraphrase & { half: "dev" | "heldOut" })[] = Object.entries(WRITTEN)
  .flatMap(([theme, qs], t) =>
    qs.map((q, i) => ({ q, theme, half: (t + i) % 2 === 0 ? "dev" as const : "heldOut" as const }))
  );
