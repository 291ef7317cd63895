/**
 * The `other` questions of bench/questions/meaning_set.ts: four per theme of the demo data, as a
 * person or an agent would type them to find product ideas for that theme's problem, written away
 * from the theme's own words. Written by hand before any method was tuned on them, and never
 * edited to fit one (meaning_set.ts says how they are split and labelled).
 */

/** Four questions in other words per theme (the key): 1st and 3rd dev, 2nd and 4th held out. */
export const OTHER: Record<string, [string, string, string, string]> = {
  // Finance & Billing
  "late-invoices": [
    "my clients treat net 30 as a loose suggestion",
    "freelancer tired of begging customers to settle what they owe",
    "automated dunning for tiny consultancies",
    "finished projects still not settled months later",
  ],
  "receipt-capture": [
    "crumpled fuel stubs all over my car when the accountant asks",
    "my accountant needs proof of every business purchase and I have none",
    "hotel and taxi stubs I must send clients to get travel costs back",
    "bookkeeper whose clients never hand over proof of what they bought",
  ],
  "cash-flow-forecasting": [
    "how many months before my consultancy runs dry",
    "projected money in and money out for a small agency",
    "if our biggest retainer ends, how long can the studio survive",
    "spot lean months ahead of time",
  ],
  "multi-currency-payouts": [
    "my UK client pays in pounds and I lose a chunk turning it into dollars",
    "payment processor deposits in euros and dollars never match my sales ledger",
    "holding balances in dollars, euros and yen as a tiny agency",
    "hidden FX markups",
  ],
  // Developer Tools
  "flaky-ci": [
    "nondeterministic specs that only break on the shared runner",
    "we keep clicking retry until the checks turn green",
    "automated checks take forty minutes on every push",
    "developers assume every broken check is noise now",
  ],
  "api-monitoring": [
    "vendor deprecated an endpoint and nobody on our team knew",
    "got throttled by an upstream service and heard about it from customers",
    "schema drift in vendor responses",
    "event callbacks from a vendor suddenly look different",
  ],
  "secrets-sprawl": [
    "an ex-employee probably still has our database login",
    "config files full of passwords emailed between developers",
    "stop hardcoding access tokens in source code",
    "after a developer leaves we change every service password by hand",
  ],
  "local-dev-environments": [
    "works on my machine but not on the new guy's",
    "docker compose file only one engineer understands",
    "scrubbed copy of the prod database to code against",
    "would-be contributors give up in dependency hell before writing a line",
  ],
  // Marketing & Growth
  "content-decay": [
    "our evergreen guides slipped to page three over a year",
    "organic visits down 40% and I can't tell which pages lost them",
    "which published guides on our site to revise first",
    "watch the search position of our money pages weekly",
  ],
  "social-scheduling": [
    "queue a week of tweets and LinkedIn updates in one sitting",
    "founder with no time to stay active on Twitter while shipping",
    "recycle one webinar into a month of short LinkedIn updates",
    "did that viral tweet send a single user our way",
  ],
  "cold-outreach-deliverability": [
    "Gmail hides my sales sequences from the people I'm pitching",
    "open rates on my sales emails fell to almost zero",
    "write a unique first line for 500 leads without spending days",
    "our company address got blocklisted after mailing prospects",
  ],
  "newsletter-growth": [
    "my weekly letter's list has been flat since spring",
    "brands that would pay for a mention in a small email publication",
    "reward fans who bring their friends to my email letter",
    "why do people opt out after the third edition",
  ],
  // E-commerce
  "inventory-sync": [
    "a buyer paid for a lamp I had already sold elsewhere",
    "Etsy and my own store show different counts of the same mug",
    "warn me before my best seller runs out",
    "quantities per size and colour on every channel I sell through",
  ],
  "returns-handling": [
    "half the dresses we ship come back",
    "printing prepaid postage for every parcel a customer sends back",
    "shoppers who lie about a parcel arriving empty",
    "why do buyers send things back, size or quality?",
  ],
  "product-photos": [
    "my listings look dull next to competitors' glossy ones",
    "can't afford a photographer for 300 new SKUs",
    "cut out the clutter behind my handmade jewellery snaps",
    "everyone reselling this gadget uses the same supplier pictures",
  ],
  "abandoned-carts": [
    "people fill a basket then vanish",
    "text shoppers who left items behind in my store",
    "visitors ask about sizing and leave before anyone replies",
    "win back almost-buyers for a Shopify store",
  ],
  // Productivity & Collaboration
  "meeting-overload": [
    "no focus time left between all the group calls",
    "what does an hour with twelve people in a room cost the company",
    "who promised to do what after Tuesday's sync",
    "transcribe a one-hour discussion into five bullet points",
  ],
  "async-standups": [
    "half my team is asleep when the other half starts work",
    "a Slack bot that asks each engineer what they did yesterday",
    "the 9am sync is at midnight for our Manila engineers",
    "roll up what everybody shipped this week for my manager",
  ],
  "stale-internal-docs": [
    "only one person knows how anything works here",
    "how-to pages describing tools we retired years ago",
    "ask owners to recheck their how-to pages every quarter",
    "the same question gets asked in our channels every week",
  ],
  "client-portals": [
    "agency customers dig through weeks of emails to find what we sent",
    "a white-label space where my agency's customers log in",
    "customers lose the latest version of the mockup in their inbox",
    "stop weekly calls just to tell a customer where their website stands",
  ],
  // Health & Wellness
  "appointment-no-shows": [
    "physio clients ghost their sessions and I still pay rent",
    "waiting list that automatically offers freed-up slots",
    "text people the day before so they actually come in",
    "therapist losing hundreds a week to empty chairs",
  ],
  "client-progress-tracking": [
    "trainer whose clients' weigh-ins live in five different apps",
    "charts of a nutrition client's weight loss over time",
    "deliver meal programs to dieting clients in an app",
    "online coaching business outgrowing a Google Sheet per client",
  ],
  "practice-paperwork": [
    "counsellor spending every evening on clinical write-ups",
    "HIPAA-safe e-signatures for new patient questionnaires",
    "superbills and payer submissions for a solo counsellor",
    "fill in SOAP records faster at a small physio clinic",
  ],
  "habit-tracking": [
    "clients give up on their new morning rituals after a fortnight",
    "a gentle text each evening asking whether they meditated",
    "streaks to keep yoga students practising at home",
    "therapist wants patients to journal their feelings between visits",
  ],
  // Education & Learning
  "grading-load": [
    "stack of 120 lab reports to mark by Monday",
    "spot ghostwritten coursework",
    "teacher burnout from correcting stacks of tests",
    "reusable comment snippets for coding bootcamp submissions",
  ],
  "course-completion": [
    "people buy my video program and never finish it",
    "cohort chat space for learners of my online academy",
    "certificates to motivate learners to reach the end",
    "what fraction of my online class actually reaches the last video",
  ],
  "tutoring-logistics": [
    "endless texting back and forth to find a time for maths help",
    "private maths teacher working out which family paid for which hours",
    "one-on-one teacher wants a page where families pick slots",
    "families want to know what their kid did in each session",
  ],
  "lesson-planning": [
    "homeschooling parent who needs ready-to-teach units for the week",
    "Pinterest rabbit hole every time I need a class activity",
    "simplify a reading text for kids below grade level",
    "map my teaching units to state standards",
  ],
  // Local Services & Property
  "job-quoting": [
    "plumber writing up bids at 11pm after a full day",
    "homeowner went with the landscaper who replied within the hour",
    "cleaning business charges every house differently depending on mood",
    "turn more bids into booked work for a landscaping business",
  ],
  "tenant-maintenance": [
    "landlord with 12 units who forgets which flat reported what",
    "history of every fix done to each apartment",
    "renters report a problem with a photo in one place",
    "send the right repairman to the right flat without ten phone calls",
  ],
  "review-management": [
    "one-star rant on Google is costing my cleaning company calls",
    "SMS nudge for a star rating once the lawn is mowed",
    "plumbers with 4 stars lose to the guy with 200 ratings",
    "show our best testimonials on the company website",
  ],
  "crew-scheduling": [
    "three vans and the boss moving magnets around a board",
    "cleaners clocking in at client houses with a tap",
    "a visit got moved this morning and nobody told the guys in the van",
    "who goes where tomorrow for a 15-person landscaping company",
  ],
  // HR & Recruiting
  "candidate-screening": [
    "800 applicants for one junior role and I'm the only recruiter",
    "shortlist engineers from a pile of ChatGPT cover letters",
    "the same person applied four times under different names",
    "we keep losing the best engineers to companies that reply faster",
  ],
  "employee-onboarding": [
    "new starter arrived and nobody had set up their email",
    "everything a remote joiner needs before Monday, handled automatically",
    "offer letter, NDA and bank details from people joining next month",
    "founder buying laptops on her own card for each new employee",
  ],
  "contractor-compliance": [
    "risk of misclassification fines for our remote freelancers",
    "1099 paperwork for our US freelancers every January",
    "taking on a developer in Portugal without a local entity",
    "proof for an auditor that our gig workers are really independent",
  ],
  "time-off-tracking": [
    "two engineers away the same week and nobody noticed until Monday",
    "accrual rules differ in Germany and the US for our team",
    "let managers okay days away without leaving our chat app",
    "sick days recorded on a shared sheet",
  ],
  // Data & AI
  "spreadsheet-chaos": [
    "one wrong cell reference ruined the numbers we sent investors",
    "tidy up customer lists with duplicates and inconsistent dates",
    "an Excel model only our former analyst understood",
    "Google Sheets that fall apart whenever someone inserts a column",
  ],
  "llm-cost-control": [
    "our GPT spend doubled last month",
    "which customers of our AI app use the most tokens",
    "our AI feature loses money on every request",
    "swap to a cheaper Claude tier without answers getting worse",
  ],
  "dashboard-sprawl": [
    "we have more BI reports than employees and nobody looks at them",
    "ask our data warehouse questions in normal sentences",
    "our only analyst is buried in one-off number requests",
    "root cause when a KPI suddenly jumps or dips",
  ],
  "document-extraction": [
    "someone keys supplier bills into the ERP all day",
    "OCR that keeps the table layout of photographed contracts",
    "pull line items out of thousands of vendor bills via API",
    "send each arriving letter, contract or form to the right team automatically",
  ],
};
