/**
 * Word lists of the demo data generator (src/ingest/demo.ts): categories and their themes, audiences,
 * channels, products and the sentence parts that titles, pain narratives and quotes are built
 * from. Plain data, so that the generator reads as logic.
 */

export interface DemoTheme {
  slug: string;
  name: string;
  summary: string;
  /** Verb phrases: what the audience needs to do ("chase late invoices"). */
  jobs: string[];
}

export interface DemoCategory {
  slug: string;
  name: string;
  description: string;
  audiences: string[];
  subreddits: string[];
  features: string[];
  competitors: string[];
  /** A public page worth reading on the domain, linked from the blog. */
  reference: [string, string];
  themes: DemoTheme[];
}

function theme(slug: string, name: string, summary: string, jobs: string[]): DemoTheme {
  return { slug, name, summary, jobs };
}

export const CATEGORIES: DemoCategory[] = [
  {
    slug: "finance-ops",
    name: "Finance & Billing",
    description: "Invoicing, payments, expenses and bookkeeping for freelancers and small firms",
    audiences: [
      "freelance designers",
      "small agency owners",
      "independent consultants",
      "bookkeepers for small businesses",
      "solo accountants",
    ],
    subreddits: ["freelance", "Accounting", "smallbusiness", "Bookkeeping"],
    features: [
      "Automatic reminder sequences",
      "Stripe and PayPal payment links",
      "Bank feed reconciliation",
      "Client payment portal",
      "Late fee calculation",
      "QuickBooks and Xero sync",
      "Cash flow dashboard",
      "Multi-currency invoices",
    ],
    competitors: ["FreshBooks", "QuickBooks", "Xero", "Wave", "Bonsai", "Chaser"],
    reference: [
      "the SBA guide to managing cash flow",
      "https://www.sba.gov/business-guide/manage-your-business/manage-your-finances",
    ],
    themes: [
      theme(
        "late-invoices",
        "Late invoice chasing",
        "Freelancers and small agencies lose hours every month chasing unpaid invoices",
        ["chase late invoices", "send polite payment reminders", "collect overdue payments"],
      ),
      theme(
        "receipt-capture",
        "Receipt and expense capture",
        "Receipts pile up in inboxes and shoeboxes until tax season turns them into a crisis",
        ["match receipts to card transactions", "file expense receipts", "prepare expense reports"],
      ),
      theme(
        "cash-flow-forecasting",
        "Cash flow forecasting",
        "Owners cannot see how much cash they will have next month without a spreadsheet marathon",
        ["forecast cash flow", "plan for quarterly tax payments", "see their runway at a glance"],
      ),
      theme(
        "multi-currency-payouts",
        "Multi-currency payouts",
        "Paying and getting paid across borders still means fees, delays and manual reconciliation",
        [
          "reconcile Stripe payouts",
          "pay international contractors",
          "avoid currency conversion fees",
        ],
      ),
    ],
  },
  {
    slug: "developer-tools",
    name: "Developer Tools",
    description: "Building, testing, shipping and running software",
    audiences: [
      "backend developers",
      "small engineering teams",
      "solo SaaS founders",
      "DevOps engineers",
      "open source maintainers",
    ],
    subreddits: ["webdev", "devops", "programming", "sysadmin", "selfhosted"],
    features: [
      "GitHub Actions integration",
      "Slack alerts",
      "One-line install script",
      "Test history per branch",
      "Audit log",
      "Self-hosted option",
      "OpenAPI diffing",
      "Role-based access",
    ],
    competitors: ["Datadog", "Sentry", "CircleCI", "Doppler", "Postman", "Buildkite"],
    reference: ["the Twelve-Factor App", "https://12factor.net/"],
    themes: [
      theme(
        "flaky-ci",
        "Flaky CI pipelines",
        "Tests that fail at random block merges and teach teams to ignore red builds",
        [
          "quarantine flaky tests",
          "speed up slow CI builds",
          "find the commit that broke the build",
        ],
      ),
      theme(
        "api-monitoring",
        "Third-party API breakage",
        "Integrations break silently when a provider changes a payload or a rate limit",
        ["monitor third-party API changes", "catch breaking webhook payloads", "track API latency"],
      ),
      theme(
        "secrets-sprawl",
        "Secrets sprawl",
        "API keys live in chat logs, laptops and forgotten CI variables",
        [
          "rotate leaked API keys",
          "share environment variables safely",
          "audit who can read production secrets",
        ],
      ),
      theme(
        "local-dev-environments",
        "Local dev environments",
        "New developers lose their first week getting the project to run",
        ["spin up preview environments", "seed realistic test data", "onboard new developers"],
      ),
    ],
  },
  {
    slug: "marketing-growth",
    name: "Marketing & Growth",
    description: "Acquisition, content, SEO, outreach and newsletters",
    audiences: [
      "indie hackers",
      "small marketing teams",
      "B2B founders",
      "newsletter writers",
      "content marketers",
    ],
    subreddits: ["marketing", "SEO", "DigitalMarketing", "Entrepreneur", "juststart"],
    features: [
      "Google Search Console import",
      "AI rewrite suggestions",
      "Content calendar",
      "UTM link builder",
      "Weekly performance digest",
      "Domain warm-up",
      "Audience segmentation",
      "Competitor tracking",
    ],
    competitors: ["Ahrefs", "Semrush", "Buffer", "Hootsuite", "Lemlist", "beehiiv"],
    reference: [
      "Google's SEO starter guide",
      "https://developers.google.com/search/docs/fundamentals/seo-starter-guide",
    ],
    themes: [
      theme(
        "content-decay",
        "Content decay",
        "Blog posts that once brought traffic slowly sink and nobody notices until signups drop",
        [
          "find blog posts that are losing traffic",
          "refresh outdated articles",
          "track keyword rankings",
        ],
      ),
      theme(
        "social-scheduling",
        "Social scheduling fatigue",
        "Posting on five networks by hand eats the time that should go into the product",
        [
          "repurpose long posts into threads",
          "schedule posts across networks",
          "measure which posts bring signups",
        ],
      ),
      theme(
        "cold-outreach-deliverability",
        "Cold outreach deliverability",
        "Outreach lands in spam and burns the domain the company depends on",
        ["warm up sending domains", "personalize cold emails", "keep outreach out of spam"],
      ),
      theme(
        "newsletter-growth",
        "Newsletter growth",
        "Small newsletters stall at a few hundred readers and cannot find sponsors",
        [
          "grow a newsletter audience",
          "find sponsors for a small newsletter",
          "reduce unsubscribes",
        ],
      ),
    ],
  },
  {
    slug: "ecommerce",
    name: "E-commerce",
    description: "Online shops, marketplaces, fulfilment and returns",
    audiences: [
      "Shopify store owners",
      "small online shops",
      "Etsy sellers",
      "dropshippers",
      "DTC brand founders",
    ],
    subreddits: ["ecommerce", "shopify", "EtsySellers", "FulfillmentByAmazon"],
    features: [
      "Shopify app",
      "Marketplace stock sync",
      "Return label generation",
      "Exchange-first return flow",
      "Background removal",
      "Abandoned cart SMS",
      "Reorder forecasts",
      "Customer chat widget",
    ],
    competitors: ["Shopify Flow", "Loop Returns", "Sellbrite", "Klaviyo", "remove.bg", "Gorgias"],
    reference: [
      "Shopify's guide to inventory management",
      "https://www.shopify.com/retail/inventory-management",
    ],
    themes: [
      theme(
        "inventory-sync",
        "Inventory sync",
        "Selling on several marketplaces means overselling and angry cancellations",
        ["sync stock across marketplaces", "avoid overselling", "predict reorder dates"],
      ),
      theme(
        "returns-handling",
        "Returns handling",
        "Returns are slow, expensive and mostly handled by hand in spreadsheets",
        ["process returns", "cut return fraud", "turn refunds into exchanges"],
      ),
      theme(
        "product-photos",
        "Product photos",
        "Good product photos are expensive and the cheap ones hurt conversion",
        ["edit product photos", "remove image backgrounds", "create lifestyle shots"],
      ),
      theme(
        "abandoned-carts",
        "Abandoned carts",
        "Most carts are abandoned and small shops have no time to follow up",
        ["recover abandoned carts", "answer pre-sale questions", "explain shipping costs upfront"],
      ),
    ],
  },
  {
    slug: "productivity",
    name: "Productivity & Collaboration",
    description: "Meetings, documentation, status updates and client communication",
    audiences: [
      "remote teams",
      "project managers",
      "small agencies",
      "operations leads",
      "executive assistants",
    ],
    subreddits: ["productivity", "projectmanagement", "remotework", "Notion"],
    features: [
      "Calendar integration",
      "Meeting transcript summaries",
      "Slack and Teams bot",
      "Branded client portal",
      "Approval workflows",
      "Stale page detection",
      "Weekly digest e-mail",
      "Search across tools",
    ],
    competitors: ["Notion", "Confluence", "Otter.ai", "Geekbot", "Asana", "Basecamp"],
    reference: [
      "GitLab's remote work handbook",
      "https://handbook.gitlab.com/handbook/company/culture/all-remote/guide/",
    ],
    themes: [
      theme(
        "meeting-overload",
        "Meeting overload",
        "Calendars are full of meetings whose decisions are forgotten by the next day",
        ["summarize meeting notes", "turn meetings into action items", "cut recurring meetings"],
      ),
      theme(
        "async-standups",
        "Async standups",
        "Daily standups across time zones waste an hour for a two-minute update",
        ["run async standups", "collect weekly status updates", "spot blocked work early"],
      ),
      theme(
        "stale-internal-docs",
        "Stale internal docs",
        "Internal wikis rot and answers end up buried in chat",
        ["keep internal docs up to date", "find answers buried in Slack", "onboard new hires"],
      ),
      theme(
        "client-portals",
        "Client portals",
        "Agencies juggle e-mail threads, shared drives and chat to keep clients informed",
        ["share files with clients", "collect client approvals", "keep clients updated"],
      ),
    ],
  },
  {
    slug: "health-wellness",
    name: "Health & Wellness",
    description: "Small practices, coaches, studios and personal health habits",
    audiences: [
      "independent therapists",
      "personal trainers",
      "small clinics",
      "yoga studio owners",
      "nutritionists",
    ],
    subreddits: ["personaltraining", "therapists", "yoga", "privatepractice"],
    features: [
      "Online booking with deposits",
      "SMS reminders",
      "Waitlist auto-fill",
      "Progress charts",
      "Intake form builder",
      "Session note templates",
      "Client mobile app",
      "Insurance claim export",
    ],
    competitors: ["Mindbody", "SimplePractice", "Calendly", "Trainerize", "Jane App", "Acuity"],
    reference: [
      "the HHS summary of the HIPAA privacy rule",
      "https://www.hhs.gov/hipaa/for-professionals/privacy/index.html",
    ],
    themes: [
      theme(
        "appointment-no-shows",
        "Appointment no-shows",
        "Every missed appointment is lost income that small practices cannot recover",
        [
          "reduce appointment no-shows",
          "fill last-minute cancellations",
          "take deposits at booking",
        ],
      ),
      theme(
        "client-progress-tracking",
        "Client progress tracking",
        "Coaches track client progress across notes apps, spreadsheets and chat",
        ["track client progress", "share workout plans", "collect weekly check-in forms"],
      ),
      theme(
        "practice-paperwork",
        "Practice paperwork",
        "Session notes and claims eat the evenings of solo practitioners",
        ["write session notes", "file insurance claims", "keep intake forms compliant"],
      ),
      theme(
        "habit-tracking",
        "Habit tracking",
        "People want accountability for habits without another noisy app",
        ["build a daily habit", "track sleep and mood", "stay accountable to a coach"],
      ),
    ],
  },
  {
    slug: "education",
    name: "Education & Learning",
    description: "Teachers, tutors, course creators and learners",
    audiences: [
      "high school teachers",
      "online course creators",
      "private tutors",
      "bootcamp instructors",
      "homeschooling parents",
    ],
    subreddits: ["Teachers", "OnlineCourses", "Tutoring", "homeschool"],
    features: [
      "Rubric-based feedback",
      "Google Classroom sync",
      "Progress emails to parents",
      "Package billing",
      "Lesson plan templates",
      "Cohort community space",
      "Quiz generator",
      "Plagiarism check",
    ],
    competitors: ["Google Classroom", "Teachable", "Kajabi", "Gradescope", "Wyzant", "Quizlet"],
    reference: ["the ISTE standards for educators", "https://iste.org/standards/educators"],
    themes: [
      theme(
        "grading-load",
        "Grading load",
        "Teachers spend their evenings and weekends grading and writing feedback",
        ["grade essays", "give feedback on assignments", "detect AI-written homework"],
      ),
      theme(
        "course-completion",
        "Course completion",
        "Most students of online courses never reach the second module",
        [
          "keep students engaged in online courses",
          "send course reminders",
          "build a community around a course",
        ],
      ),
      theme(
        "tutoring-logistics",
        "Tutoring logistics",
        "Tutors spend as long on scheduling and billing as on teaching",
        [
          "schedule tutoring sessions",
          "bill for tutoring packages",
          "share lesson notes with parents",
        ],
      ),
      theme(
        "lesson-planning",
        "Lesson planning",
        "Planning differentiated lessons takes hours that teachers do not have",
        ["plan lessons", "find classroom-ready materials", "adapt lessons for different levels"],
      ),
    ],
  },
  {
    slug: "local-services",
    name: "Local Services & Property",
    description: "Trades, field services, cleaning, landscaping and rentals",
    audiences: [
      "plumbers",
      "small property managers",
      "cleaning companies",
      "landscapers",
      "independent landlords",
    ],
    subreddits: ["Plumbing", "PropertyManagement", "Landlord", "sweatystartup"],
    features: [
      "Mobile quote builder",
      "Photo attachments",
      "Automatic quote follow-ups",
      "Tenant request portal",
      "Route planning",
      "Google review requests",
      "Crew time tracking",
      "Card payments on site",
    ],
    competitors: ["Jobber", "Housecall Pro", "ServiceTitan", "Buildium", "Podium", "Tenant Turner"],
    reference: [
      "the FTC's guidance on consumer reviews",
      "https://www.ftc.gov/business-guidance/advertising-marketing/endorsements-influencers-reviews",
    ],
    themes: [
      theme(
        "job-quoting",
        "Quotes and estimates",
        "Tradespeople write quotes at night and lose jobs to whoever answered first",
        [
          "send quotes from the job site",
          "follow up on unanswered quotes",
          "price jobs consistently",
        ],
      ),
      theme(
        "tenant-maintenance",
        "Tenant maintenance requests",
        "Maintenance requests arrive by text, e-mail and phone and fall through the cracks",
        ["track maintenance requests", "dispatch contractors", "keep tenants informed"],
      ),
      theme(
        "review-management",
        "Online reviews",
        "A handful of reviews decides which local business gets the call",
        ["ask happy customers for reviews", "reply to bad reviews", "monitor reviews across sites"],
      ),
      theme(
        "crew-scheduling",
        "Crew scheduling",
        "Scheduling crews on a whiteboard breaks down at the third truck",
        ["schedule field crews", "track hours on the job", "plan routes between jobs"],
      ),
    ],
  },
  {
    slug: "hr-recruiting",
    name: "HR & Recruiting",
    description: "Hiring, onboarding, contractors and time off",
    audiences: [
      "small HR teams",
      "startup founders",
      "technical recruiters",
      "hiring managers",
      "people ops leads",
    ],
    subreddits: ["humanresources", "recruiting", "startups", "remotework"],
    features: [
      "Applicant scoring",
      "Interview scheduling links",
      "E-signature",
      "Equipment ordering",
      "Contractor tax forms",
      "Leave calendar",
      "Slack approvals",
      "Payroll export",
    ],
    competitors: ["Greenhouse", "Lever", "BambooHR", "Deel", "Rippling", "Workable"],
    reference: [
      "the IRS guidance on independent contractors",
      "https://www.irs.gov/businesses/small-businesses-self-employed/independent-contractor-self-employed-or-employee",
    ],
    themes: [
      theme(
        "candidate-screening",
        "Candidate screening",
        "A single job post brings hundreds of applications, many of them generated",
        ["screen hundreds of applications", "schedule interviews", "spot fake candidates"],
      ),
      theme(
        "employee-onboarding",
        "Employee onboarding",
        "Onboarding is a checklist in someone's head that breaks when they are away",
        ["run employee onboarding", "collect signed documents", "order equipment for new hires"],
      ),
      theme(
        "contractor-compliance",
        "Contractor compliance",
        "Hiring contractors abroad raises tax and classification questions nobody can answer",
        [
          "classify contractors correctly",
          "collect contractor tax forms",
          "pay contractors in many countries",
        ],
      ),
      theme(
        "time-off-tracking",
        "Time off tracking",
        "Leave is tracked in spreadsheets and nobody knows who is out next week",
        ["track paid time off", "plan team holidays", "approve leave requests"],
      ),
    ],
  },
  {
    slug: "data-ai",
    name: "Data & AI",
    description: "Spreadsheets, dashboards, documents and the cost of language models",
    audiences: [
      "data analysts",
      "small data teams",
      "AI startup founders",
      "ML engineers",
      "non-technical founders",
    ],
    subreddits: ["dataengineering", "MachineLearning", "excel", "LocalLLaMA", "analytics"],
    features: [
      "CSV and Excel import",
      "Natural language queries",
      "Prompt cache",
      "Cost alerts per team",
      "PDF table extraction",
      "Scheduled digests",
      "Model comparison reports",
      "API and webhooks",
    ],
    competitors: ["Metabase", "Tableau", "Helicone", "Docparser", "Airtable", "LangSmith"],
    reference: [
      "the OpenAI guide to prompt caching",
      "https://platform.openai.com/docs/guides/prompt-caching",
    ],
    themes: [
      theme(
        "spreadsheet-chaos",
        "Spreadsheet chaos",
        "Critical numbers live in spreadsheets that break silently",
        ["clean messy spreadsheets", "merge CSV exports", "catch formula errors"],
      ),
      theme(
        "llm-cost-control",
        "LLM cost control",
        "Language model bills grow faster than the revenue of the features they power",
        ["track LLM API costs", "cache repeated prompts", "compare model quality"],
      ),
      theme(
        "dashboard-sprawl",
        "Dashboard sprawl",
        "Dozens of dashboards and still nobody can say why a metric moved",
        ["build dashboards without SQL", "explain metric changes", "send weekly metric digests"],
      ),
      theme(
        "document-extraction",
        "Document extraction",
        "Data trapped in PDFs and scans is typed in by hand",
        [
          "extract data from PDFs",
          "parse invoices into spreadsheets",
          "classify incoming documents",
        ],
      ),
    ],
  },
];

/** Platforms with their weight and channels (subreddits come from the categories). */
export const PLATFORMS: { name: string; weight: number; channels: string[] }[] = [
  { name: "reddit", weight: 50, channels: [] },
  { name: "hackernews", weight: 14, channels: ["Ask HN", "Show HN"] },
  { name: "producthunt", weight: 10, channels: ["Discussions", "Launches"] },
  {
    name: "stackexchange",
    weight: 10,
    channels: ["stackoverflow", "superuser", "serverfault", "webmasters", "ux", "money"],
  },
  {
    name: "indiehackers",
    weight: 10,
    channels: ["Ideas and Validation", "Growth", "Building in Public"],
  },
  { name: "github", weight: 6, channels: ["Discussions", "Issues"] },
];

export const ADJECTIVES = [
  "lightweight",
  "simple",
  "affordable",
  "privacy-first",
  "no-code",
  "mobile-first",
  "open-source",
  "self-serve",
  "B2B",
  "AI-powered",
];

export const PRODUCTS = [
  "tool",
  "SaaS",
  "assistant",
  "dashboard",
  "platform",
  "service",
  "app",
  "browser extension",
  "Slack bot",
  "API",
  "CRM",
];

/** Title templates: {adj} {product} {audience} {job} {Audience}. */
export const TITLES = [
  "A {adj} {product} that helps {audience} {job} automatically",
  "An AI assistant that lets {audience} {job} in minutes",
  "A simple way for {audience} to {job} without spreadsheets",
  "A {adj} {product} for {audience} who need to {job}",
  "{Audience} need a better way to {job}",
  "A {product} that reminds {audience} to {job} before it becomes urgent",
  "A {adj} {product} to {job} for {audience}",
  "Help {audience} {job} with one click",
  "A done-for-you service that helps {audience} {job}",
  "A {adj} {product} that lets {audience} {job} and get paid faster",
];

export const WORKAROUNDS = [
  "a spreadsheet they update by hand",
  "sticky notes and memory",
  "copy-pasting between five browser tabs",
  "a shared inbox that nobody owns",
  "manual reminders in their calendar",
  "a patchwork of Zapier automations",
  "a paper notebook",
  "a freelancer from Upwork",
];

export const COMPLAINTS = [
  "built for enterprises and priced accordingly",
  "too complex to set up",
  "missing the one feature they actually need",
  "slow and clunky on mobile",
  "not integrated with the tools they already use",
  "full of features nobody asked for",
];

export const NARRATIVE_OPENERS = [
  "{Audience} keep running into the same problem: they cannot {job} without losing hours.",
  "For {audience}, the hardest part of the week is trying to {job}.",
  "Thread after thread, {audience} describe how painful it is to {job}.",
  "{Audience} say they would gladly pay to never again have to {job} by hand.",
];

export const NARRATIVE_MIDDLES = [
  "Most of them still rely on {workaround}, which costs them {hours} hours a week.",
  "Today the usual answer is {workaround}, and it breaks as soon as the business grows.",
  "They have tried {competitor}, but say it is {complaint}.",
  "Tools such as {competitor} exist, yet people describe them as {complaint}.",
  "The problem is worst for small teams without a dedicated operations person.",
  "It gets worse every month as the number of clients grows.",
  "Several people mention that mistakes here have cost them real money.",
];

export const NARRATIVE_CLOSERS = [
  "People in {channel} say they would pay {price} a month for something that just works.",
  "A focused product that does this one job well could win them over quickly.",
  "The ask is modest: something small that handles it automatically and stays out of the way.",
  "Nobody asks for a platform; they ask for the boring part to disappear.",
];

/** Rare words with how many in ten thousand opportunities mention them, for search tests. */
export const RARE_WORDS: [string, number][] = [
  ["quokka", 5],
  ["zeppelin", 10],
  ["marzipan", 20],
  ["fjord", 40],
];

export const RARE_SENTENCES: Record<string, string> = {
  quokka: "One founder joked that the current process is as cheerful as a quokka in a rainstorm.",
  zeppelin: "Another compared the existing tools to steering a zeppelin through a parking garage.",
  marzipan: "A bakery owner said the problem even reached her marzipan orders.",
  fjord: "A team in a fjord town said slow connections make the web tools unusable.",
};

export const QUOTES = [
  "Honestly I would pay for anything that helps me {job}. Right now it is {workaround}.",
  "We tried {competitor} but it was {complaint}.",
  "Every single week I lose {hours} hours trying to {job}.",
  "Does anyone have a tool to {job}? Asking for my team of {k}.",
  "I am so tired of having to {job} manually, there has to be a better way.",
  "If someone built a simple app to {job} I would sign up today.",
  "Our current process to {job} is {workaround} and it keeps breaking.",
];

/** Personal data that community quotes sometimes contain, so that scrubbing has work to do. */
export const PERSONAL_BITS = [
  "DM u/{name} if you found something.",
  "cc @{name} who had the same issue",
  "Email me at {name}@{domain} if you are building this.",
  "Call me on +1 415 555 {digits} if you want to interview me.",
  "Ping /u/{name}, they wrote a script for it.",
  "My number is (212) 555-{digits}, happy to beta test.",
  "Reach me at {name}.work@{domain} or @{name}.",
  "You can ring our office on +44 20 7946 {digits}.",
];

export const PEOPLE = [
  "lena_designs",
  "throwaway_dev42",
  "mark-the-plumber",
  "jsmith",
  "anna_k",
  "devops_dan",
  "coach_mia",
  "ravi.codes",
  "teacher_tom",
  "etsy_queen",
];

export const DOMAINS = ["example.com", "mail.example.org", "studio.example.net"];

export const RISKS = [
  "Crowded market with well-funded incumbents",
  "Low willingness to pay among the smallest customers",
  "Depends on a third-party API that can change its terms",
  "Long sales cycle once customers grow",
  "Hard to reach the audience without paid acquisition",
  "Data privacy obligations add cost",
  "Customers may see it as a feature, not a product",
  "Seasonal demand",
  "High support load during onboarding",
  "Platform risk if the marketplace builds it natively",
];

export const MONETIZATION = [
  "Subscription, $19-$49 per month",
  "Freemium with a paid team plan",
  "Usage-based pricing",
  "Per-seat subscription",
  "One-time license plus paid updates",
  "Transaction fee on payments processed",
];

export const DIFFERENTIATIONS = [
  "Does one job end to end instead of being a suite",
  "Set up in five minutes without a sales call",
  "Priced for teams of one to ten",
  "Works inside the tools customers already use",
  "Privacy-first: data stays in the customer's region",
  "Opinionated defaults drawn from hundreds of community threads",
];
