import { z } from "@hono/zod-openapi";
import { personName, timestamp } from "../../platform/http/fields";
import { envelopeSchema } from "../../platform/http/envelope";

/**
 * Session ids come from the partner's page and server alike: an opaque token, at least 16
 * characters so that no one guesses another browser's session and posts into it.
 */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._:-]{16,128}$/;
export const SESSION_ID_MESSAGE = "session-id header is required (16 to 128 characters of A-Z a-z 0-9 . _ : -)";

const text = (max: number) => z.string().max(max);
const count = z.number().int().min(0).max(100_000);

/** 4.14 body. Every spec field; `device.webdriver` is our addition (navigator.webdriver). */
export const signalsRequestSchema = z
  .object({
    page_url: text(2048).optional(),
    referrer: text(2048).optional(),
    user_agent: text(1024).optional(),
    language: text(64).optional(),
    timezone: text(64).optional(),
    screen: z
      .object({ width: count.optional(), height: count.optional(), pixel_ratio: z.number().min(0).max(100).optional() })
      .optional(),
    device: z
      .object({
        platform: text(128).optional(),
        hardware_concurrency: z.number().int().min(0).max(4096).optional(),
        touch_points: z.number().int().min(0).max(1024).optional(),
        webdriver: z.boolean().optional().openapi({ description: "navigator.webdriver (not in 4.14; added)" }),
      })
      .optional(),
    fingerprint: z.object({
      visitor_id: z
        .string()
        .min(1)
        .max(128)
        .openapi({ description: "Hash of stable browser attributes, computed in the page" }),
    }),
  })
  .openapi("RadarSignals", {
    example: {
      page_url: "https://partner.example/book/123",
      referrer: "https://partner.example/",
      user_agent:
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
      language: "en-US",
      timezone: "America/New_York",
      screen: { width: 1920, height: 1080, pixel_ratio: 1 },
      device: { platform: "Win32", hardware_concurrency: 8, touch_points: 0, webdriver: false },
      fingerprint: { visitor_id: "v_3f9a1c" },
    },
  });

export type BrowserSignals = z.infer<typeof signalsRequestSchema>;

export const signalsAcceptedSchema = envelopeSchema(
  z.object({
    accepted: z.literal(true),
    expires_at: timestamp.openapi({
      description: "Signals are merged into checks of this session until then",
      example: "2026-11-25T14:59:13.091Z",
    }),
  }),
).openapi("RadarSignalsAccepted");

export const TRIGGER_EVENTS = ["rate_view", "booking_attempt", "payment_attempt"] as const;

const person = z.object({ first_name: personName(200).optional(), last_name: personName(200).optional() });

export const checkRequestSchema = z
  .object({
    trigger_event: z
      .enum(TRIGGER_EVENTS)
      .default("booking_attempt")
      .openapi({ description: "Where in the partner's flow the check runs" }),
    booker: person.extend({
      email: z.email().max(320).openapi({ example: "jane@example.com" }),
      phone: text(64).optional(),
    }),
    guest: person.optional(),
    context: z
      .object({
        partner_request_id: text(200).optional(),
        booker_uuid: text(200).optional(),
        user_id: text(200).optional(),
        ip: z
          .union([z.ipv4().openapi({ format: "ipv4" }), z.ipv6().openapi({ format: "ipv6" })])
          .optional()
          .openapi({ description: "The booker's IP as the partner's server saw it" }),
      })
      .optional(),
    payment: z
      .object({
        billing_address: z
          .object({
            line1: text(500).optional(),
            city: text(200).optional(),
            state: text(200).optional(),
            postal_code: text(32).optional(),
            country: z
              .string()
              .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 country code")
              .optional(),
          })
          .optional(),
      })
      .optional(),
    extras: z.object({ channel: text(64).optional() }).optional(),
    inventory_id: text(200).optional(),
    inventory_country: text(2).optional(),
  })
  .openapi("RadarCheckRequest");

export type CheckRequest = z.infer<typeof checkRequestSchema>;

export const reasonSchema = z
  .object({
    code: z.string().openapi({ example: "disposable_email_domain" }),
    weight: z.number().int(),
    message: z.string(),
  })
  .openapi("RadarReason");

export const RADAR_RESULTS = [
  "low_risk",
  "elevated_risk",
  "high_risk",
  "radar_disabled",
  "evaluation_timeout",
  "evaluation_error",
] as const;

export const riskCheckSchema = z
  .object({
    check_id: z.string(),
    partner_id: z.string(),
    session_id: z.string(),
    decision: z.enum(["deny", "allow", "bypass"]),
    radar_result: z.enum(RADAR_RESULTS).openapi({
      description:
        "evaluation_timeout: the evaluation ran out of time and `decision` was made on what it had read (deny, allow or, for rate_view only, bypass); never billable",
    }),
    should_hide_rate: z.boolean(),
    billable: z.boolean(),
    checked_at: timestamp,
    trigger_event: z.enum(TRIGGER_EVENTS),
    score: z.number().int().min(0).max(100),
    reasons: z.array(reasonSchema),
    merged_signals: z
      .object({
        visitor_id: z.string(),
        user_agent: z.string().nullable(),
        timezone: z.string().nullable(),
        language: z.string().nullable(),
        webdriver: z.boolean().nullable(),
        ip_country: z.string().nullable(),
      })
      .nullable()
      .openapi({ description: "The browser signals of this session that the check used; null when none were merged" }),
  })
  .openapi("RadarCheck", {
    example: {
      check_id: "chk_e8714918-a8a6-4f85-a954-7b9ab6b41c7f",
      partner_id: "demo",
      session_id: "sess_7Yk2Qp9Lm4Xw8Rt3",
      decision: "allow",
      radar_result: "low_risk",
      should_hide_rate: false,
      billable: true,
      checked_at: "2026-11-24T14:59:13.116Z",
      trigger_event: "booking_attempt",
      score: 0,
      reasons: [],
      merged_signals: {
        visitor_id: "v_3f9a1c",
        user_agent:
          "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
        timezone: "America/New_York",
        language: "en-US",
        webdriver: false,
        ip_country: "US",
      },
    },
  });

export type RiskCheck = z.infer<typeof riskCheckSchema>;

export const checkResponseSchema = envelopeSchema(riskCheckSchema).openapi("RadarCheckResponse");

/** A host as browsers send it in Origin: DNS labels (IDNs in punycode), IPv4, or a bracketed IPv6. */
const ORIGIN_HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*)$/;

/**
 * An origin exactly as a browser sends it: scheme, host and port only (no path, no slash). The
 * allow-list compares exactly, so a pattern such as https://*.shop.example is refused, not
 * stored to match nothing.
 */
const originSchema = z
  .string()
  .max(2048)
  .refine((value) => !value.includes("*"), {
    error: "wildcards are not supported: list each origin, such as https://shop.example",
    abort: true,
  })
  .refine((value) => {
    try {
      const url = new URL(value);
      return (
        (url.protocol === "https:" || url.protocol === "http:") &&
        url.origin === value &&
        ORIGIN_HOST.test(url.hostname)
      );
    } catch {
      return false;
    }
  }, "must be an origin such as https://shop.example (scheme, host and optional port; no path)");

export const radarSettingsRequestSchema = z
  .object({
    allowedOrigins: z.array(originSchema).max(50).optional().openapi({
      description:
        "Exact origins that may post signals with the collector key (no wildcards); [] or absent = any origin",
    }),
  })
  .openapi("RadarSettingsRequest", { example: { allowedOrigins: ["https://partner.example"] } });

export const radarSettingsResponseSchema = envelopeSchema(
  z
    .object({ partnerId: z.string(), allowedOrigins: z.array(z.string()) })
    .openapi({ example: { partnerId: "demo", allowedOrigins: ["https://partner.example"] } }),
).openapi("RadarSettings");
