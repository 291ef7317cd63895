/**
 * Word lists of the demo data generator (src/ingest/demo.ts): categories and their themes, who
 * has each problem and where they talk about it, and the phrases that titles, pain narratives
 * and quotes are built from. Plain data, so that the generator reads as logic. Phrases belong to
 * the theme or category they fit: a title's ending, a workaround, a feature or a rival of one
 * theme is never used for another.
 */

/** Where people talk: a platform and a channel that exists on it (a subreddit, a site...). */
export type Community = readonly [platform: string, channel: string];

export interface DemoTheme {
  slug: string;
  name: string;
  summary: string;
  /** Verb phrases: what the audience needs to do ("chase late invoices"). */
  jobs: string[];
  /** The audiences of the category that have this problem. */
  audiences: string[];
  /** Endings that fit after every job of the theme ("and get paid faster"). */
  outcomes: string[];
  /** What people do today instead ("a spreadsheet of due dates"). */
  workarounds: string[];
  features: string[];
  competitors: string[];
}

export interface DemoCategory {
  slug: string;
  name: string;
  description: string;
  audiences: string[];
  /** Where each audience talks, by audience. */
  communities: Record<string, Community[]>;
  /** What a product for this category's audiences can be ("mobile app"). */
  products: string[];
  competitors: string[];
  /** A public page worth reading on the domain, linked from the blog. */
  reference: [string, string];
  themes: DemoTheme[];
}

function theme(
  slug: string,
  name: string,
  summary: string,
  parts: Omit<DemoTheme, "slug" | "name" | "summary">,
): DemoTheme {
  return { slug, name, summary, ...parts };
}

const r = (channel: string): Community => ["reddit", channel];
const askHN: Community = ["hackernews", "Ask HN"];
const showHN: Community = ["hackernews", "Show HN"];
const phDiscussions: Community = ["producthunt", "Discussions"];
const phLaunches: Community = ["producthunt", "Launches"];
const se = (site: string): Community => ["stackexchange", site];
const ih = (group: string): Community => ["indiehackers", group];
const ghDiscussions: Community = ["github", "Discussions"];

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
    communities: {
      "freelance designers": [r("freelance"), r("graphic_design"), se("freelancing")],
      "small agency owners": [r("agency"), r("smallbusiness"), ih("Growth")],
      "independent consultants": [r("consulting"), r("freelance"), se("freelancing")],
      "bookkeepers for small businesses": [r("Bookkeeping"), r("Accounting"), se("money")],
      "solo accountants": [r("Accounting"), r("taxpros"), se("money")],
    },
    products: ["lightweight web app", "QuickBooks add-on", "mobile app", "AI assistant"],
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
        {
          jobs: [
            "chase late invoices",
            "send polite payment reminders",
            "collect overdue payments",
          ],
          audiences: ["freelance designers", "small agency owners", "independent consultants"],
          outcomes: [
            "and get paid faster",
            "without awkward follow-up emails",
            "before cash runs short",
          ],
          workarounds: [
            "a spreadsheet of due dates updated by hand",
            "calendar reminders set one invoice at a time",
            "copy-pasted reminder emails",
          ],
          features: [
            "Automatic reminder sequences",
            "Stripe and PayPal payment links",
            "Late fee calculation",
            "Client payment portal",
            "QuickBooks and Xero sync",
          ],
          competitors: ["FreshBooks", "Chaser", "Bonsai"],
        },
      ),
      theme(
        "receipt-capture",
        "Receipt and expense capture",
        "Receipts pile up in inboxes and shoeboxes until tax season turns them into a crisis",
        {
          jobs: [
            "match receipts to card transactions",
            "file expense receipts",
            "prepare expense reports",
          ],
          audiences: [
            "freelance designers",
            "independent consultants",
            "bookkeepers for small businesses",
            "solo accountants",
          ],
          outcomes: [
            "before tax season",
            "straight from their phone",
            "without a shoebox of paper",
          ],
          workarounds: [
            "a shoebox of paper receipts",
            "photos of receipts lost in a camera roll",
            "forwarding every receipt to a shared inbox",
          ],
          features: [
            "Receipt photo capture",
            "Bank feed matching",
            "Inbox forwarding address",
            "Expense report export",
            "Tax category suggestions",
          ],
          competitors: ["Expensify", "Dext", "QuickBooks"],
        },
      ),
      theme(
        "cash-flow-forecasting",
        "Cash flow forecasting",
        "Owners cannot see how much cash they will have next month without a spreadsheet marathon",
        {
          jobs: [
            "forecast cash flow",
            "plan for quarterly tax payments",
            "see their runway at a glance",
          ],
          audiences: ["small agency owners", "independent consultants"],
          outcomes: [
            "from live bank data",
            "without a spreadsheet marathon",
            "every Monday morning",
          ],
          workarounds: [
            "a forecasting spreadsheet rebuilt every quarter",
            "guesses from last month's bank balance",
            "an accountant's call once a quarter",
          ],
          features: [
            "Bank feed import",
            "Cash flow dashboard",
            "Tax set-aside estimates",
            "What-if scenarios",
            "Weekly cash digest",
          ],
          competitors: ["Float", "Fathom", "Pulse"],
        },
      ),
      theme(
        "multi-currency-payouts",
        "Multi-currency payouts",
        "Paying and getting paid across borders still means fees, delays and manual reconciliation",
        {
          jobs: [
            "reconcile Stripe payouts",
            "pay international contractors",
            "avoid currency conversion fees",
          ],
          audiences: ["freelance designers", "small agency owners", "independent consultants"],
          outcomes: [
            "in minutes instead of days",
            "without a spreadsheet of exchange rates",
            "at month end",
          ],
          workarounds: [
            "a spreadsheet of exchange rates",
            "bank transfers with fees that show up days later",
            "three payment accounts in three currencies",
          ],
          features: [
            "Multi-currency invoices",
            "Payout reconciliation",
            "Fee comparison per transfer",
            "Stripe and Wise import",
            "Contractor payment runs",
          ],
          competitors: ["Wise", "Payoneer", "Stripe"],
        },
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
    communities: {
      "backend developers": [r("webdev"), r("backend"), se("stackoverflow"), askHN],
      "small engineering teams": [r("ExperiencedDevs"), askHN, ghDiscussions],
      "solo SaaS founders": [r("SaaS"), ih("Building in Public"), showHN, phLaunches],
      "DevOps engineers": [r("devops"), r("sysadmin"), se("serverfault"), ghDiscussions],
      "open source maintainers": [ghDiscussions, r("opensource"), askHN],
    },
    products: ["command-line tool", "GitHub App", "self-hosted service", "open-source tool"],
    competitors: ["Datadog", "Sentry", "CircleCI", "Doppler", "Postman", "Buildkite"],
    reference: ["the Twelve-Factor App", "https://12factor.net/"],
    themes: [
      theme(
        "flaky-ci",
        "Flaky CI pipelines",
        "Tests that fail at random block merges and teach teams to ignore red builds",
        {
          jobs: [
            "quarantine flaky tests",
            "speed up slow CI builds",
            "find the commit that broke the build",
          ],
          audiences: [
            "backend developers",
            "small engineering teams",
            "DevOps engineers",
            "open source maintainers",
          ],
          outcomes: [
            "before the next release",
            "without rerunning the whole suite",
            "on every pull request",
          ],
          workarounds: [
            "pressing the rerun button until the build is green",
            "a wiki page of known flaky tests",
            "skipping tests with a TODO comment",
          ],
          features: [
            "GitHub Actions integration",
            "Test history per branch",
            "Automatic quarantine",
            "Build time breakdown",
            "Slack alerts",
          ],
          competitors: ["CircleCI", "Buildkite", "Trunk"],
        },
      ),
      theme(
        "api-monitoring",
        "Third-party API breakage",
        "Integrations break silently when a provider changes a payload or a rate limit",
        {
          jobs: [
            "monitor third-party API changes",
            "catch breaking webhook payloads",
            "track API latency",
          ],
          audiences: ["backend developers", "small engineering teams", "solo SaaS founders"],
          outcomes: ["before customers notice", "across every integration", "with alerts in Slack"],
          workarounds: [
            "finding out from a customer's support ticket",
            "a cron job that curls the endpoint",
            "reading provider changelogs by hand",
          ],
          features: [
            "OpenAPI diffing",
            "Webhook payload recording",
            "Latency percentiles per provider",
            "Slack alerts",
            "Status page watcher",
          ],
          competitors: ["Postman", "Checkly", "Datadog"],
        },
      ),
      theme(
        "secrets-sprawl",
        "Secrets sprawl",
        "API keys live in chat logs, laptops and forgotten CI variables",
        {
          jobs: [
            "rotate leaked API keys",
            "share environment variables safely",
            "audit who can read production secrets",
          ],
          audiences: ["small engineering teams", "DevOps engineers", "solo SaaS founders"],
          outcomes: ["in one afternoon", "across every CI pipeline", "before an auditor asks"],
          workarounds: [
            ".env files passed around in chat",
            "a shared password manager vault",
            "CI variables nobody dares to delete",
          ],
          features: [
            "Secret scanning in commits",
            "One-line install script",
            "Audit log",
            "Role-based access",
            "Automatic key rotation",
          ],
          competitors: ["Doppler", "HashiCorp Vault", "1Password"],
        },
      ),
      theme(
        "local-dev-environments",
        "Local dev environments",
        "New developers lose their first week getting the project to run",
        {
          jobs: [
            "spin up preview environments",
            "seed realistic test data",
            "onboard new developers",
          ],
          audiences: ["backend developers", "small engineering teams", "open source maintainers"],
          outcomes: ["in one command", "on day one", "without a wiki page of setup steps"],
          workarounds: [
            "a README of setup steps that is always out of date",
            "a senior developer's afternoon for every new hire",
            "a shared staging server everybody breaks",
          ],
          features: [
            "Dev container templates",
            "Preview environment per pull request",
            "Anonymized production snapshots",
            "Self-hosted option",
            "One-line install script",
          ],
          competitors: ["Gitpod", "GitHub Codespaces", "Docker Desktop"],
        },
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
    communities: {
      "indie hackers": [ih("Growth"), ih("Ideas and Validation"), r("SideProject"), phDiscussions],
      "small marketing teams": [r("marketing"), r("DigitalMarketing"), se("webmasters")],
      "B2B founders": [r("startups"), r("SaaS"), askHN, ih("Growth")],
      "newsletter writers": [r("Newsletters"), ih("Growth"), phDiscussions],
      "content marketers": [r("content_marketing"), r("SEO"), se("webmasters")],
    },
    products: ["AI assistant", "Chrome extension", "lightweight web app", "no-code tool"],
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
        {
          jobs: [
            "find blog posts that are losing traffic",
            "refresh outdated articles",
            "track keyword rankings",
          ],
          audiences: [
            "small marketing teams",
            "content marketers",
            "B2B founders",
            "indie hackers",
          ],
          outcomes: ["before signups drop", "every week", "without an SEO agency"],
          workarounds: [
            "a quarterly export from Search Console into a spreadsheet",
            "checking rankings by hand in an incognito window",
            "an SEO agency report nobody reads",
          ],
          features: [
            "Google Search Console import",
            "Traffic decay alerts",
            "AI rewrite suggestions",
            "Keyword rank history",
            "Refresh calendar",
          ],
          competitors: ["Ahrefs", "Semrush", "Clearscope"],
        },
      ),
      theme(
        "social-scheduling",
        "Social scheduling fatigue",
        "Posting on five networks by hand eats the time that should go into the product",
        {
          jobs: [
            "repurpose long posts into threads",
            "schedule posts across networks",
            "measure which posts bring signups",
          ],
          audiences: ["indie hackers", "small marketing teams", "content marketers"],
          outcomes: [
            "in one weekly session",
            "without five browser tabs",
            "while they build the product",
          ],
          workarounds: [
            "posting by hand on five networks",
            "a content calendar in a spreadsheet",
            "UTM links they forget to add",
          ],
          features: [
            "Content calendar",
            "Thread splitter",
            "UTM link builder",
            "Signup attribution",
            "Weekly performance digest",
          ],
          competitors: ["Buffer", "Hootsuite", "Typefully"],
        },
      ),
      theme(
        "cold-outreach-deliverability",
        "Cold outreach deliverability",
        "Outreach lands in spam and burns the domain the company depends on",
        {
          jobs: ["warm up sending domains", "personalize cold emails", "keep outreach out of spam"],
          audiences: ["B2B founders", "small marketing teams", "indie hackers"],
          outcomes: [
            "without burning their main domain",
            "at a few hundred emails a week",
            "before a launch",
          ],
          workarounds: [
            "a second domain bought in a hurry",
            "mail merge from a spreadsheet",
            "sending from a personal inbox until it gets flagged",
          ],
          features: [
            "Domain warm-up",
            "SPF, DKIM and DMARC checks",
            "Personalization from LinkedIn and websites",
            "Spam score preview",
            "Reply detection",
          ],
          competitors: ["Lemlist", "Instantly", "Apollo"],
        },
      ),
      theme(
        "newsletter-growth",
        "Newsletter growth",
        "Small newsletters stall at a few hundred readers and cannot find sponsors",
        {
          jobs: [
            "grow a newsletter audience",
            "find sponsors for a small newsletter",
            "reduce unsubscribes",
          ],
          audiences: ["newsletter writers", "indie hackers", "content marketers"],
          outcomes: ["without paid ads", "one issue at a time", "with a few hours a week"],
          workarounds: [
            "cold emails to brands that might sponsor",
            "cross-promotion swaps arranged in direct messages",
            "reading the unsubscribe reasons once a year",
          ],
          features: [
            "Referral program",
            "Sponsor marketplace",
            "Audience segmentation",
            "Churn reasons dashboard",
            "Recommendation network",
          ],
          competitors: ["beehiiv", "Substack", "ConvertKit"],
        },
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
    communities: {
      "Shopify store owners": [r("shopify"), r("ecommerce"), phDiscussions],
      "small online shops": [r("ecommerce"), r("smallbusiness"), se("webmasters")],
      "Etsy sellers": [r("EtsySellers"), r("Etsy")],
      "dropshippers": [r("dropship"), r("ecommerce")],
      "DTC brand founders": [r("ecommerce"), r("Entrepreneur"), ih("Growth"), phDiscussions],
    },
    products: ["lightweight web app", "AI assistant", "mobile app", "done-for-you service"],
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
        {
          jobs: ["sync stock across marketplaces", "avoid overselling", "predict reorder dates"],
          audiences: [
            "Shopify store owners",
            "small online shops",
            "Etsy sellers",
            "DTC brand founders",
          ],
          outcomes: ["before a sale weekend", "in real time", "without a nightly spreadsheet"],
          workarounds: [
            "a nightly stock count in a spreadsheet",
            "updating each marketplace by hand",
            "keeping a safety buffer that hides real stock",
          ],
          features: [
            "Marketplace stock sync",
            "Reorder forecasts",
            "Low stock alerts",
            "Bundle and variant mapping",
            "Shopify app",
          ],
          competitors: ["Sellbrite", "Linnworks", "Shopify Flow"],
        },
      ),
      theme(
        "returns-handling",
        "Returns handling",
        "Returns are slow, expensive and mostly handled by hand in spreadsheets",
        {
          jobs: ["process returns", "cut return fraud", "turn refunds into exchanges"],
          audiences: ["Shopify store owners", "small online shops", "DTC brand founders"],
          outcomes: ["without a spreadsheet", "in a few clicks", "before the holiday rush"],
          workarounds: [
            "a returns spreadsheet and a lot of emails",
            "printing labels one by one",
            "refunding everything to avoid arguments",
          ],
          features: [
            "Return label generation",
            "Exchange-first return flow",
            "Return reason analytics",
            "Fraud flags",
            "Customer self-service portal",
          ],
          competitors: ["Loop Returns", "AfterShip Returns", "Returnly"],
        },
      ),
      theme(
        "product-photos",
        "Product photos",
        "Good product photos are expensive and the cheap ones hurt conversion",
        {
          jobs: ["edit product photos", "remove image backgrounds", "create lifestyle shots"],
          audiences: ["Etsy sellers", "small online shops", "dropshippers", "Shopify store owners"],
          outcomes: [
            "without hiring a studio",
            "in batches of a hundred",
            "that match the marketplace rules",
          ],
          workarounds: [
            "a phone, a white sheet and a window",
            "a freelance retoucher paid per image",
            "supplier photos everybody else uses too",
          ],
          features: [
            "Background removal",
            "Batch editing",
            "AI lifestyle scenes",
            "Marketplace size presets",
            "Shadow and reflection effects",
          ],
          competitors: ["remove.bg", "Photoroom", "Canva"],
        },
      ),
      theme(
        "abandoned-carts",
        "Abandoned carts",
        "Most carts are abandoned and small shops have no time to follow up",
        {
          jobs: [
            "recover abandoned carts",
            "answer pre-sale questions",
            "explain shipping costs upfront",
          ],
          audiences: ["Shopify store owners", "dropshippers", "DTC brand founders"],
          outcomes: ["around the clock", "without a support team", "on mobile"],
          workarounds: [
            "one generic reminder email",
            "a contact form answered the next day",
            "a shipping table buried in the footer",
          ],
          features: [
            "Abandoned cart SMS",
            "Customer chat widget",
            "Shipping cost calculator",
            "Discount rules",
            "Recovery analytics",
          ],
          competitors: ["Klaviyo", "Gorgias", "Postscript"],
        },
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
    communities: {
      "remote teams": [r("remotework"), askHN, phDiscussions],
      "project managers": [r("projectmanagement"), se("pm")],
      "small agencies": [r("agency"), r("web_design")],
      "operations leads": [r("operations"), r("Notion"), se("pm")],
      "executive assistants": [r("ExecutiveAssistants"), r("productivity")],
    },
    products: ["Slack bot", "AI assistant", "lightweight web app", "Chrome extension"],
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
        {
          jobs: [
            "summarize meeting notes",
            "turn meetings into action items",
            "cut recurring meetings",
          ],
          audiences: [
            "remote teams",
            "project managers",
            "operations leads",
            "executive assistants",
          ],
          outcomes: ["before the next meeting", "automatically", "without another calendar app"],
          workarounds: [
            "whoever remembers to take notes",
            "recordings nobody watches",
            "a shared doc that stops after the first agenda item",
          ],
          features: [
            "Calendar integration",
            "Meeting transcript summaries",
            "Action item tracking",
            "Meeting cost report",
            "Slack and Teams bot",
          ],
          competitors: ["Otter.ai", "Fireflies", "Fellow"],
        },
      ),
      theme(
        "async-standups",
        "Async standups",
        "Daily standups across time zones waste an hour for a two-minute update",
        {
          jobs: ["run async standups", "collect weekly status updates", "spot blocked work early"],
          audiences: ["remote teams", "project managers"],
          outcomes: ["across time zones", "in Slack", "without a daily call"],
          workarounds: [
            "a daily call at an hour that suits nobody",
            "a Slack thread that scrolls away",
            "status reports copied from five tools",
          ],
          features: [
            "Slack and Teams bot",
            "Blocker detection",
            "Weekly digest e-mail",
            "Time zone aware prompts",
            "Jira and Linear links",
          ],
          competitors: ["Geekbot", "Standuply", "Range"],
        },
      ),
      theme(
        "stale-internal-docs",
        "Stale internal docs",
        "Internal wikis rot and answers end up buried in chat",
        {
          jobs: [
            "keep internal docs up to date",
            "find answers buried in Slack",
            "onboard new hires",
          ],
          audiences: ["operations leads", "remote teams", "project managers"],
          outcomes: [
            "without a documentation team",
            "in one search",
            "with answers they can trust",
          ],
          workarounds: [
            "asking the one person who knows",
            "a wiki nobody has edited since last year",
            "pinned Slack messages",
          ],
          features: [
            "Stale page detection",
            "Search across tools",
            "Owner reminders",
            "Answers from Slack threads",
            "Onboarding paths",
          ],
          competitors: ["Notion", "Confluence", "Guru"],
        },
      ),
      theme(
        "client-portals",
        "Client portals",
        "Agencies juggle e-mail threads, shared drives and chat to keep clients informed",
        {
          jobs: ["share files with clients", "collect client approvals", "keep clients updated"],
          audiences: ["small agencies", "project managers"],
          outcomes: [
            "without e-mail threads",
            "in one branded portal",
            "before the deadline slips",
          ],
          workarounds: [
            "long e-mail threads with attachments",
            "shared drive links that expire",
            "a weekly status call",
          ],
          features: [
            "Branded client portal",
            "Approval workflows",
            "File versioning",
            "Client-facing task lists",
            "Weekly update e-mails",
          ],
          competitors: ["Basecamp", "Copilot", "SuiteDash"],
        },
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
    communities: {
      "independent therapists": [r("therapists"), r("privatepractice")],
      "personal trainers": [r("personaltraining"), se("fitness")],
      "small clinics": [r("privatepractice"), r("physicaltherapy"), r("healthIT")],
      "yoga studio owners": [r("yoga"), r("yogateachers")],
      "nutritionists": [r("nutrition"), r("dietetics")],
    },
    products: ["mobile app", "lightweight web app", "AI assistant", "privacy-first app"],
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
        {
          jobs: [
            "reduce appointment no-shows",
            "fill last-minute cancellations",
            "take deposits at booking",
          ],
          audiences: [
            "independent therapists",
            "small clinics",
            "personal trainers",
            "yoga studio owners",
          ],
          outcomes: ["without phone tag", "with text reminders", "on autopilot"],
          workarounds: [
            "reminder calls the evening before",
            "a paper waitlist at the front desk",
            "a cancellation policy nobody enforces",
          ],
          features: [
            "Online booking with deposits",
            "SMS reminders",
            "Waitlist auto-fill",
            "Cancellation policy enforcement",
            "Calendar sync",
          ],
          competitors: ["Acuity", "Jane App", "Mindbody"],
        },
      ),
      theme(
        "client-progress-tracking",
        "Client progress tracking",
        "Coaches track client progress across notes apps, spreadsheets and chat",
        {
          jobs: [
            "track client progress",
            "share plans between sessions",
            "collect weekly check-in forms",
          ],
          audiences: ["personal trainers", "nutritionists"],
          outcomes: ["in one place", "from a phone", "without chasing clients on chat"],
          workarounds: [
            "a spreadsheet per client",
            "screenshots sent over WhatsApp",
            "a notes app full of half-finished plans",
          ],
          features: [
            "Progress charts",
            "Plan templates",
            "Weekly check-in forms",
            "Client mobile app",
            "Photo and measurement log",
          ],
          competitors: ["Trainerize", "TrueCoach", "Everfit"],
        },
      ),
      theme(
        "practice-paperwork",
        "Practice paperwork",
        "Session notes and claims eat the evenings of solo practitioners",
        {
          jobs: ["write session notes", "file insurance claims", "keep intake forms compliant"],
          audiences: ["independent therapists", "small clinics", "nutritionists"],
          outcomes: [
            "in half the time",
            "without giving up their evenings",
            "from a template library",
          ],
          workarounds: [
            "typing notes late at night",
            "a billing service that takes a cut of every claim",
            "paper intake forms scanned by hand",
          ],
          features: [
            "Session note templates",
            "Insurance claim export",
            "Intake form builder",
            "E-signature",
            "Encrypted storage",
          ],
          competitors: ["SimplePractice", "TherapyNotes", "Jane App"],
        },
      ),
      theme(
        "habit-tracking",
        "Habit tracking",
        "People want accountability for habits without another noisy app",
        {
          jobs: [
            "keep clients on a daily habit",
            "track clients' sleep and mood",
            "hold clients accountable between sessions",
          ],
          audiences: [
            "personal trainers",
            "nutritionists",
            "independent therapists",
            "yoga studio owners",
          ],
          outcomes: [
            "without another noisy app",
            "with a two-minute check-in",
            "through text messages",
          ],
          workarounds: [
            "a daily text sent by hand",
            "printed habit sheets",
            "a group chat that goes quiet after a week",
          ],
          features: [
            "Daily check-in prompts",
            "Streaks and gentle nudges",
            "Mood and sleep log",
            "Coach dashboard",
            "Wearable import",
          ],
          competitors: ["Habitica", "Streaks", "Coach.me"],
        },
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
    communities: {
      "high school teachers": [r("Teachers"), r("teaching"), se("matheducators")],
      "online course creators": [r("elearning"), ih("Ideas and Validation"), phDiscussions],
      "private tutors": [r("Tutoring"), r("Teachers")],
      "bootcamp instructors": [r("codingbootcamp"), askHN],
      "homeschooling parents": [r("homeschool"), r("Parenting")],
    },
    products: ["AI assistant", "lightweight web app", "mobile app", "Chrome extension"],
    competitors: ["Google Classroom", "Teachable", "Kajabi", "Gradescope", "Wyzant", "Quizlet"],
    reference: ["the ISTE standards for educators", "https://iste.org/standards/educators"],
    themes: [
      theme(
        "grading-load",
        "Grading load",
        "Teachers spend their evenings and weekends grading and writing feedback",
        {
          jobs: ["grade essays", "give feedback on assignments", "detect AI-written homework"],
          audiences: ["high school teachers", "bootcamp instructors"],
          outcomes: [
            "in half the time",
            "without losing their weekends",
            "with a rubric they trust",
          ],
          workarounds: [
            "red pens and Sunday afternoons",
            "copy-pasted comment banks",
            "three different AI detectors that disagree",
          ],
          features: [
            "Rubric-based feedback",
            "Google Classroom sync",
            "Comment bank",
            "AI writing signals",
            "Grade export",
          ],
          competitors: ["Gradescope", "Turnitin", "Google Classroom"],
        },
      ),
      theme(
        "course-completion",
        "Course completion",
        "Most students of online courses never reach the second module",
        {
          jobs: [
            "keep students engaged in online courses",
            "send course reminders",
            "build a community around a course",
          ],
          audiences: ["online course creators", "bootcamp instructors"],
          outcomes: ["past the second module", "without daily manual emails", "after launch week"],
          workarounds: [
            "a Facebook group that goes quiet",
            "manual reminder emails",
            "a Discord server with more bots than students",
          ],
          features: [
            "Cohort community space",
            "Progress nudges",
            "Completion analytics",
            "Live session scheduler",
            "Certificates",
          ],
          competitors: ["Teachable", "Kajabi", "Circle"],
        },
      ),
      theme(
        "tutoring-logistics",
        "Tutoring logistics",
        "Tutors spend as long on scheduling and billing as on teaching",
        {
          jobs: [
            "schedule tutoring sessions",
            "bill for tutoring packages",
            "share lesson notes with parents",
          ],
          audiences: ["private tutors"],
          outcomes: ["without a week of texts", "from one calendar", "after every lesson"],
          workarounds: [
            "a week of texts to find a slot",
            "bank transfers matched by hand",
            "lesson notes typed into emails",
          ],
          features: [
            "Package billing",
            "Booking page",
            "Progress emails to parents",
            "Lesson notes",
            "Calendar sync",
          ],
          competitors: ["Wyzant", "TutorBird", "Teachworks"],
        },
      ),
      theme(
        "lesson-planning",
        "Lesson planning",
        "Planning differentiated lessons takes hours that teachers do not have",
        {
          jobs: [
            "plan lessons",
            "find classroom-ready materials",
            "adapt lessons for different levels",
          ],
          audiences: ["high school teachers", "homeschooling parents", "private tutors"],
          outcomes: [
            "in an hour instead of a Sunday",
            "for the week ahead",
            "that match the curriculum",
          ],
          workarounds: [
            "hours on Pinterest and Teachers Pay Teachers",
            "last year's plans with new dates",
            "a binder of photocopies",
          ],
          features: [
            "Lesson plan templates",
            "Curriculum standards mapping",
            "Quiz generator",
            "Reading level adjustment",
            "Printable worksheets",
          ],
          competitors: ["Teachers Pay Teachers", "Quizlet", "Canva"],
        },
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
    communities: {
      "plumbers": [r("Plumbing"), r("sweatystartup")],
      "small property managers": [r("PropertyManagement"), r("realestateinvesting")],
      "cleaning companies": [r("sweatystartup"), r("smallbusiness")],
      "landscapers": [r("landscaping"), r("lawncare"), r("sweatystartup")],
      "independent landlords": [r("Landlord"), r("realestateinvesting"), se("money")],
    },
    products: ["mobile app", "text-message service", "lightweight web app", "AI assistant"],
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
        {
          jobs: [
            "send quotes from the job site",
            "follow up on unanswered quotes",
            "price jobs consistently",
          ],
          audiences: ["plumbers", "landscapers", "cleaning companies"],
          outcomes: ["before a competitor calls back", "from a phone", "without evening paperwork"],
          workarounds: [
            "quotes typed up at the kitchen table at night",
            "a price list kept in the owner's head",
            "a carbon-copy quote book",
          ],
          features: [
            "Mobile quote builder",
            "Photo attachments",
            "Automatic quote follow-ups",
            "Price book",
            "Card payments on site",
          ],
          competitors: ["Jobber", "Housecall Pro", "ServiceTitan"],
        },
      ),
      theme(
        "tenant-maintenance",
        "Tenant maintenance requests",
        "Maintenance requests arrive by text, e-mail and phone and fall through the cracks",
        {
          jobs: ["track maintenance requests", "dispatch contractors", "keep tenants informed"],
          audiences: ["small property managers", "independent landlords"],
          outcomes: ["without lost texts", "from one inbox", "before small leaks become big bills"],
          workarounds: [
            "texts from tenants at all hours",
            "a notebook of contractor phone numbers",
            "a shared inbox that nobody owns",
          ],
          features: [
            "Tenant request portal",
            "Contractor dispatch",
            "Photo attachments",
            "Status updates by text",
            "Maintenance history per unit",
          ],
          competitors: ["Buildium", "AppFolio", "Tenant Turner"],
        },
      ),
      theme(
        "review-management",
        "Online reviews",
        "A handful of reviews decides which local business gets the call",
        {
          jobs: [
            "ask happy customers for reviews",
            "reply to bad reviews",
            "monitor reviews across sites",
          ],
          audiences: ["plumbers", "cleaning companies", "landscapers"],
          outcomes: ["right after the job", "without an agency", "from one dashboard"],
          workarounds: [
            "asking in person and hoping they remember",
            "checking Google and Yelp once a month",
            "a marketing agency on a retainer",
          ],
          features: [
            "Google review requests",
            "Review reply suggestions",
            "Multi-site monitoring",
            "Review widget for the website",
            "Text follow-ups after the job",
          ],
          competitors: ["Podium", "Birdeye", "NiceJob"],
        },
      ),
      theme(
        "crew-scheduling",
        "Crew scheduling",
        "Scheduling crews on a whiteboard breaks down at the third truck",
        {
          jobs: ["schedule field crews", "track hours on the job", "plan routes between jobs"],
          audiences: ["landscapers", "cleaning companies", "plumbers"],
          outcomes: ["without a whiteboard", "from a phone", "when jobs change at short notice"],
          workarounds: [
            "a whiteboard in the office",
            "paper timesheets filled in on Friday",
            "a group text every morning",
          ],
          features: [
            "Drag-and-drop dispatch board",
            "Crew time tracking",
            "Route planning",
            "Job checklists",
            "Payroll export",
          ],
          competitors: ["Jobber", "Housecall Pro", "Connecteam"],
        },
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
    communities: {
      "small HR teams": [r("humanresources"), r("AskHR")],
      "startup founders": [r("startups"), askHN, ih("Building in Public")],
      "technical recruiters": [r("recruiting"), r("humanresources")],
      "hiring managers": [r("ExperiencedDevs"), r("managers"), se("workplace")],
      "people ops leads": [r("humanresources"), r("remotework")],
    },
    products: ["Slack bot", "lightweight web app", "AI assistant", "self-serve portal"],
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
        {
          jobs: ["screen hundreds of applications", "schedule interviews", "spot fake candidates"],
          audiences: [
            "technical recruiters",
            "hiring managers",
            "startup founders",
            "small HR teams",
          ],
          outcomes: [
            "in a fraction of the time",
            "before good candidates accept elsewhere",
            "without a big ATS",
          ],
          workarounds: [
            "reading every CV by hand",
            "a spreadsheet of candidates and a lot of email",
            "keyword filters that reject good people",
          ],
          features: [
            "Applicant scoring",
            "Interview scheduling links",
            "Duplicate and fake profile checks",
            "Structured scorecards",
            "Candidate e-mail templates",
          ],
          competitors: ["Greenhouse", "Lever", "Workable"],
        },
      ),
      theme(
        "employee-onboarding",
        "Employee onboarding",
        "Onboarding is a checklist in someone's head that breaks when they are away",
        {
          jobs: [
            "run employee onboarding",
            "collect signed documents",
            "order equipment for new hires",
          ],
          audiences: ["small HR teams", "people ops leads", "startup founders"],
          outcomes: ["before day one", "without a checklist in someone's head", "for remote hires"],
          workarounds: [
            "a checklist in someone's head",
            "PDFs sent back and forth by email",
            "ordering laptops from a personal card",
          ],
          features: [
            "Onboarding checklists",
            "E-signature",
            "Equipment ordering",
            "Slack approvals",
            "Welcome pages",
          ],
          competitors: ["BambooHR", "Rippling", "Deel"],
        },
      ),
      theme(
        "contractor-compliance",
        "Contractor compliance",
        "Hiring contractors abroad raises tax and classification questions nobody can answer",
        {
          jobs: [
            "classify contractors correctly",
            "collect contractor tax forms",
            "pay contractors in many countries",
          ],
          audiences: ["startup founders", "people ops leads", "small HR teams"],
          outcomes: ["without a law firm", "before tax season", "with an audit trail"],
          workarounds: [
            "a lawyer's opinion nobody can afford twice",
            "tax forms collected over email",
            "wire transfers from the founder's account",
          ],
          features: [
            "Classification questionnaire",
            "Contractor tax forms",
            "Multi-country payouts",
            "Contract templates",
            "Audit trail",
          ],
          competitors: ["Deel", "Remote", "Gusto"],
        },
      ),
      theme(
        "time-off-tracking",
        "Time off tracking",
        "Leave is tracked in spreadsheets and nobody knows who is out next week",
        {
          jobs: ["track paid time off", "plan team holidays", "approve leave requests"],
          audiences: ["small HR teams", "people ops leads", "startup founders"],
          outcomes: ["in Slack", "without a spreadsheet", "across time zones"],
          workarounds: [
            "a shared leave spreadsheet",
            "out-of-office emails nobody reads",
            "a calendar everybody forgets to update",
          ],
          features: [
            "Leave calendar",
            "Slack approvals",
            "Accrual rules per country",
            "Public holiday calendars",
            "Payroll export",
          ],
          competitors: ["BambooHR", "Timetastic", "Rippling"],
        },
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
    communities: {
      "data analysts": [r("analytics"), r("excel"), se("datascience")],
      "small data teams": [r("dataengineering"), askHN, ghDiscussions],
      "AI startup founders": [askHN, phLaunches, ih("Building in Public"), r("LocalLLaMA")],
      "ML engineers": [r("MachineLearning"), r("LocalLLaMA"), se("datascience"), ghDiscussions],
      "non-technical founders": [r("startups"), r("nocode"), ih("Ideas and Validation")],
    },
    products: ["AI assistant", "lightweight web app", "self-hosted tool", "hosted service"],
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
        {
          jobs: ["clean messy spreadsheets", "merge CSV exports", "catch formula errors"],
          audiences: ["data analysts", "non-technical founders", "small data teams"],
          outcomes: ["before the board meeting", "without writing macros", "in one pass"],
          workarounds: [
            "VLOOKUPs nobody dares to touch",
            "copy-pasting CSV exports every Monday",
            "a colleague who checks the totals by eye",
          ],
          features: [
            "CSV and Excel import",
            "Formula error checks",
            "Column matching",
            "Change history",
            "Scheduled cleanups",
          ],
          competitors: ["Airtable", "Microsoft Power Query", "Google Sheets"],
        },
      ),
      theme(
        "llm-cost-control",
        "LLM cost control",
        "Language model bills grow faster than the revenue of the features they power",
        {
          jobs: ["track LLM API costs", "cache repeated prompts", "compare model quality"],
          audiences: ["AI startup founders", "ML engineers", "small data teams"],
          outcomes: ["per customer", "before the invoice arrives", "without a data team"],
          workarounds: [
            "the provider's billing page checked at month end",
            "a spreadsheet of token counts",
            "hard-coded rate limits",
          ],
          features: [
            "Cost alerts per team",
            "Prompt cache",
            "Model comparison reports",
            "Cost per customer",
            "API and webhooks",
          ],
          competitors: ["Helicone", "LangSmith", "Langfuse"],
        },
      ),
      theme(
        "dashboard-sprawl",
        "Dashboard sprawl",
        "Dozens of dashboards and still nobody can say why a metric moved",
        {
          jobs: [
            "build dashboards without SQL",
            "explain metric changes",
            "send weekly metric digests",
          ],
          audiences: ["data analysts", "small data teams", "non-technical founders"],
          outcomes: ["in plain English", "for the whole team", "from the tools they already use"],
          workarounds: [
            "screenshots of charts pasted into Slack",
            "a data analyst's queue of ad hoc questions",
            "forty dashboards nobody opens",
          ],
          features: [
            "Natural language queries",
            "Metric change explanations",
            "Scheduled digests",
            "Dashboard usage report",
            "Warehouse connectors",
          ],
          competitors: ["Metabase", "Tableau", "Looker Studio"],
        },
      ),
      theme(
        "document-extraction",
        "Document extraction",
        "Data trapped in PDFs and scans is typed in by hand",
        {
          jobs: [
            "extract data from PDFs",
            "parse invoices into spreadsheets",
            "classify incoming documents",
          ],
          audiences: [
            "data analysts",
            "ML engineers",
            "non-technical founders",
            "AI startup founders",
          ],
          outcomes: [
            "without retyping a thing",
            "at a few cents a page",
            "with a human check for edge cases",
          ],
          workarounds: [
            "an intern retyping PDFs",
            "copy-paste from a PDF viewer that scrambles tables",
            "a brittle script per document layout",
          ],
          features: [
            "PDF table extraction",
            "Invoice field parsing",
            "Document classification",
            "Review queue for low confidence",
            "API and webhooks",
          ],
          competitors: ["Docparser", "Nanonets", "AWS Textract"],
        },
      ),
    ],
  },
];

/** The platforms the demo's communities live on, in the order of the filters' examples. */
export const PLATFORMS = [
  "reddit",
  "hackernews",
  "producthunt",
  "stackexchange",
  "indiehackers",
  "github",
] as const;

/**
 * Title templates. Every one uses every slot ({product} {audience} {job} {outcome}), so that two
 * different choices never give the same title (tests/ingest/demo_rules_test.ts checks it).
 */
export const TITLES = [
  "A {product} that helps {audience} {job} {outcome}",
  "A {product} for {audience} who need to {job} {outcome}",
  "{Audience} need a {product} to {job} {outcome}",
  "Help {audience} {job} {outcome} with a {product}",
  "A {product} that lets {audience} {job} {outcome}",
  "A {product} so {audience} can {job} {outcome}",
];

/**
 * Where a title's audience is, when a run is larger than the titles without one (about 26,000):
 * the detail that keeps every title distinct, and the region of the market it names.
 */
export const PLACES: readonly [city: string, region: string][] = [
  ["Toronto", "North America"],
  ["Leeds", "Europe"],
  ["Sydney", "Australia and New Zealand"],
  ["Chicago", "North America"],
  ["Berlin", "Europe"],
  ["Auckland", "Australia and New Zealand"],
  ["Austin", "North America"],
  ["Dublin", "Europe"],
  ["Melbourne", "Australia and New Zealand"],
  ["Vancouver", "North America"],
  ["Amsterdam", "Europe"],
  ["Brisbane", "Australia and New Zealand"],
  ["Denver", "North America"],
  ["Manchester", "Europe"],
  ["Wellington", "Australia and New Zealand"],
  ["Seattle", "North America"],
  ["Copenhagen", "Europe"],
  ["Perth", "Australia and New Zealand"],
  ["Boston", "North America"],
  ["Lisbon", "Europe"],
  ["Adelaide", "Australia and New Zealand"],
  ["Montreal", "North America"],
  ["Stockholm", "Europe"],
  ["Christchurch", "Australia and New Zealand"],
  ["Atlanta", "North America"],
  ["Glasgow", "Europe"],
  ["Canberra", "Australia and New Zealand"],
  ["Portland", "North America"],
  ["Madrid", "Europe"],
  ["Minneapolis", "North America"],
  ["Vienna", "Europe"],
  ["Calgary", "North America"],
  ["Bristol", "Europe"],
  ["Nashville", "North America"],
  ["Oslo", "Europe"],
  ["Ottawa", "North America"],
  ["Munich", "Europe"],
  ["Phoenix", "North America"],
  ["Helsinki", "Europe"],
  ["San Diego", "North America"],
  ["Barcelona", "Europe"],
  ["Philadelphia", "North America"],
  ["Edinburgh", "Europe"],
  ["Raleigh", "North America"],
  ["Rotterdam", "Europe"],
  ["Pittsburgh", "North America"],
  ["Zurich", "Europe"],
  ["Salt Lake City", "North America"],
  ["Prague", "Europe"],
  ["Halifax", "North America"],
  ["Warsaw", "Europe"],
  ["Lyon", "Europe"],
];

/** The market of a title without a place. */
export const REGIONS = ["North America", "Europe", "worldwide", "English-speaking markets"];

export const COMPLAINTS = [
  "built for enterprises and priced accordingly",
  "too complex to set up",
  "missing the one feature that matters",
  "slow and clunky on mobile",
  "not integrated with the tools already in use",
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
  "Today the usual answer is {workaround}, and it breaks as soon as the work grows.",
  "They have tried {competitor}, but say it is {complaint}.",
  "Tools such as {competitor} exist, yet people describe them as {complaint}.",
  "The problem is worst for the smallest teams, where nobody owns it.",
  "It gets worse every month as the volume grows.",
  "Several people mention that mistakes here have cost them real money.",
];

export const NARRATIVE_CLOSERS = [
  "People on {channel} say they would pay {price} a month for something that just works.",
  "A focused product that does this one job well could win them over quickly.",
  "The ask is modest: something small that handles it automatically and stays out of the way.",
  "Nobody asks for a platform; they ask for the boring part to happen automatically.",
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
];

export const DIFFERENTIATIONS = [
  "Does one job end to end instead of being a suite",
  "Set up in five minutes without a sales call",
  "Priced for teams of one to ten",
  "Works inside the tools customers already use",
  "Privacy-first: data stays in the customer's region",
  "Opinionated defaults drawn from hundreds of community threads",
];
