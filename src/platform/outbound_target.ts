/**
 * Server-side request forgery guard of outbound URLs (a watch's webhook, an OAuth client ID
 * metadata document): a URL is sent to only when it is https (http only to an allow-listed host)
 * and every address its name resolves to is public: not private, loopback, link-local (cloud
 * metadata at 169.254.169.254 and fd00:ec2::254 included), shared, multicast, documentation or
 * reserved, in IPv4 or IPv6, including IPv4 written inside IPv6 (mapped, NAT64). A webhook is
 * checked when its watch is saved and again before each delivery; redirects are never followed
 * (pinned_request.ts). The allow-list (WATCH_WEBHOOK_ALLOW) names hosts that skip the check, for
 * development and tests.
 *
 * DNS rebinding: a request resolves the name once (`resolveOutboundTarget`) and connects to the
 * address that was checked (pinned_request.ts pins it), so a DNS server that answers a public
 * address to the check and a private one a moment later is never asked the second time.
 */
import { BlockList, isIP } from "node:net";
import { bareHost } from "./hosts.ts";

/** Resolves a host name to its addresses (IPv4 and IPv6). */
export type Resolver = (host: string) => Promise<string[]>;

/** What the guard allows: hosts exempt from the check, and how names are resolved. */
export interface UrlPolicy {
  /** Host names or addresses (as in the URL, lowercase, IPv6 without brackets) always allowed. */
  allow?: readonly string[];
  /** Defaults to Deno.resolveDns (A and AAAA). */
  resolve?: Resolver;
}

/** A webhook URL the guard refuses; the message says why, for a 422 or a failed attempt. */
export class UnsafeUrlError extends Error {
  override name = "UnsafeUrlError";
}

const BLOCKED = new BlockList();
for (
  const [net, bits] of [
    ["0.0.0.0", 8], // "this" network
    ["10.0.0.0", 8], // private
    ["100.64.0.0", 10], // shared address space (carrier-grade NAT)
    ["127.0.0.0", 8], // loopback
    ["169.254.0.0", 16], // link-local, cloud metadata
    ["172.16.0.0", 12], // private
    ["192.0.0.0", 24], // IETF protocol assignments
    ["192.0.2.0", 24], // documentation
    ["192.88.99.0", 24], // 6to4 relay
    ["192.168.0.0", 16], // private
    ["198.18.0.0", 15], // benchmarking
    ["198.51.100.0", 24], // documentation
    ["203.0.113.0", 24], // documentation
    ["224.0.0.0", 4], // multicast
    ["240.0.0.0", 4], // reserved, broadcast
  ] as const
) BLOCKED.addSubnet(net, bits, "ipv4");
for (
  const [net, bits] of [
    ["::", 96], // unspecified, loopback, IPv4-compatible
    ["100::", 64], // discard
    ["2001::", 23], // IETF protocol assignments
    ["2001:db8::", 32], // documentation
    ["2002::", 16], // 6to4 (embeds IPv4)
    ["fc00::", 7], // unique local (fd00:ec2::254 is AWS metadata)
    ["fe80::", 10], // link-local
    ["fec0::", 10], // site-local
    ["ff00::", 8], // multicast
  ] as const
) BLOCKED.addSubnet(net, bits, "ipv6");

/** The 8 groups of an IPv6 address (dotted IPv4 tails allowed), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/%.*$/, "");
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1].split(".").map(Number);
    const tail = `${((parts[0] << 8) | parts[1]).toString(16)}:${
      ((parts[2] << 8) | parts[3]).toString(16)
    }`;
    text = text.slice(0, -dotted[1].length) + tail;
  }
  const [head, rest] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = rest !== undefined && rest !== "" ? rest.split(":") : [];
  const fill = rest === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array(Math.max(fill, 0)).fill("0"), ...right].map((g) =>
    parseInt(g, 16)
  );
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** The IPv4 address inside an IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96) address. */
function embeddedIpv4(groups: number[]): string | undefined {
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b &&
    groups.slice(2, 6).every((g) => g === 0);
  if (!mapped && !nat64) return undefined;
  return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join(".");
}

/** True when `address` (an IPv4 or IPv6 literal) is one a webhook must never reach. */
export function isBlockedAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return BLOCKED.check(address, "ipv4");
  if (version !== 6) return true;
  const groups = ipv6Groups(address);
  if (!groups) return true;
  const v4 = embeddedIpv4(groups);
  if (v4) return BLOCKED.check(v4, "ipv4");
  return BLOCKED.check(address, "ipv6");
}

/** Deno's resolver: every A and AAAA record of `host`. */
export const resolveWithDns: Resolver = async (host) => {
  const [a, aaaa] = await Promise.allSettled([
    Deno.resolveDns(host, "A"),
    Deno.resolveDns(host, "AAAA"),
  ]);
  return [
    ...(a.status === "fulfilled" ? a.value : []),
    ...(aaaa.status === "fulfilled" ? aaaa.value : []),
  ];
};

/** The URL's host as the allow-list and the address checks see it (IPv6 without brackets). */
function hostOf(url: URL): string {
  return bareHost(url.hostname);
}

/**
 * Parses and checks the shape of a webhook URL (no network): https, or http to an allow-listed
 * host; no user name or password; a host. Throws UnsafeUrlError.
 */
export function parseOutboundUrl(text: string, policy: UrlPolicy = {}): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UnsafeUrlError("must be an absolute https URL");
  }
  const allowed = (policy.allow ?? []).includes(hostOf(url));
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowed)) {
    throw new UnsafeUrlError(
      "must be an https URL (http only to an allow-listed development host)",
    );
  }
  if (url.username || url.password) throw new UnsafeUrlError("must not carry a user or password");
  if (!url.hostname) throw new UnsafeUrlError("must name a host");
  return url;
}

/** A checked webhook URL and the address to connect to (undefined: the host is an address). */
export interface OutboundTarget {
  url: URL;
  /** The checked address the delivery must connect to, when the host is a name. */
  address?: string;
  /** 4 or 6. */
  family?: number;
}

/**
 * Checks a webhook URL and the addresses its host resolves to right now, once; throws
 * UnsafeUrlError when any of them is not public (or none can be found). Returns the address to
 * connect to: the first one checked. Allow-listed hosts pass unchecked (resolved by the policy's
 * resolver when it has one, else by the system when connecting).
 */
export async function resolveOutboundTarget(
  text: string,
  policy: UrlPolicy = {},
): Promise<OutboundTarget> {
  const url = parseOutboundUrl(text, policy);
  const host = hostOf(url);
  if (isIP(host)) {
    if (!(policy.allow ?? []).includes(host) && isBlockedAddress(host)) {
      throw new UnsafeUrlError(`must not point to ${host}, a private or reserved address`);
    }
    return { url };
  }
  const allowed = (policy.allow ?? []).includes(host);
  if (allowed && !policy.resolve) return { url };
  if (!allowed && (host === "localhost" || host.endsWith(".localhost"))) {
    throw new UnsafeUrlError(`must not point to ${host}, a loopback name`);
  }
  const addresses = (await (policy.resolve ?? resolveWithDns)(host).catch(() => []))
    .filter((a) => isIP(a) !== 0);
  if (addresses.length === 0) throw new UnsafeUrlError(`host "${host}" cannot be resolved`);
  const blocked = allowed ? undefined : addresses.find(isBlockedAddress);
  if (blocked) {
    throw new UnsafeUrlError(
      `host "${host}" resolves to ${blocked}, a private or reserved address`,
    );
  }
  return { url, address: addresses[0], family: isIP(addresses[0]) };
}

/**
 * Checks a webhook URL and the addresses its host resolves to right now; throws UnsafeUrlError
 * when any of them is not public (or none can be found). Allow-listed hosts pass unresolved.
 */
export async function checkOutboundUrl(text: string, policy: UrlPolicy = {}): Promise<URL> {
  return (await resolveOutboundTarget(text, policy)).url;
}
