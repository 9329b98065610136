/** Radar's request bodies: a real browser's signals and a check request (pure data; radar.ts sends them). */
export const CHROME_UA =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

let counter = 0;
/** Unique suffix so tests in one file never share sessions, visitors, e-mails or IPs by accident. */
export const unique = (prefix: string) =>
  `${prefix}${Date.now().toString(36)}${(++counter).toString(36).padStart(8, "0")}`;

export const uniqueIp = () => `10.${(counter >> 8) & 255}.${++counter & 255}.${Math.floor(Math.random() * 250) + 1}`;

export const humanSignals = (overrides: Record<string, unknown> = {}) => ({
  page_url: "https://partner.example/book/123",
  referrer: "https://partner.example/",
  user_agent: CHROME_UA,
  language: "en-US",
  timezone: "America/New_York",
  screen: { width: 1920, height: 1080, pixel_ratio: 1 },
  device: { platform: "Win32", hardware_concurrency: 8, touch_points: 0, webdriver: false },
  fingerprint: { visitor_id: unique("v") },
  ...overrides,
});

export const checkBody = (overrides: Record<string, unknown> = {}) => ({
  trigger_event: "booking_attempt",
  booker: { first_name: "Jane", last_name: "Doe", email: `${unique("jane")}@example.com`, phone: "+12025550123" },
  guest: { first_name: "John", last_name: "Doe" },
  context: { partner_request_id: unique("req"), booker_uuid: unique("b"), user_id: "u-1", ip: uniqueIp() },
  payment: {
    billing_address: { line1: "1 Main St", city: "Boston", state: "MA", postal_code: "02110", country: "US" },
  },
  extras: { channel: "web" },
  ...overrides,
});
