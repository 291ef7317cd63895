/**
 * The headers of every metered answer in the OpenAPI document (openapi.ts): the quota as the
 * X-Quota-* fields and the IETF RateLimit fields, what the answer took (X-Quota-Charged), and the
 * request id.
 */
export const quotaHeaders = {
  "X-Quota-Limit": { description: "The plan's monthly limit", schema: { type: "integer" } },
  "X-Quota-Used": { description: "Calls used this month", schema: { type: "integer" } },
  "X-Quota-Remaining": { description: "Calls left this month", schema: { type: "integer" } },
  "X-Quota-Reset": {
    description: "When the quota resets",
    schema: { type: "string", format: "date-time" },
  },
  "X-Quota-Charged": {
    description: "Calls this answer took: 0 for a repeat (the same call on the same data within " +
      "24 hours), a free operation or a refusal; an export's price",
    schema: { type: "integer" },
  },
  "RateLimit-Policy": {
    description: 'IETF draft field: the monthly quota and window, e.g. "monthly";q=1000;w=2592000',
    schema: { type: "string" },
  },
  RateLimit: {
    description:
      'IETF draft field: calls remaining and seconds to the reset, e.g. "monthly";r=972;t=682113',
    schema: { type: "string" },
  },
  "X-Request-Id": {
    description: "The request id (the client's when well formed); also request_id in error bodies",
    schema: { type: "string" },
  },
};
