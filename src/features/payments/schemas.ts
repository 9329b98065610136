import { z } from "@hono/zod-openapi";

export const attachRequestSchema = z
  .object({
    portalToken: z.string().min(1).max(200).openapi({ description: "One-time token from the chat setupUrl" }),
    paymentMethodId: z
      .string()
      .regex(/^pm_[A-Za-z0-9_-]{8,100}$/, "expected a payment method token pm_...")
      .openapi({ example: "pm_3kT9x0aQw2LmNpR7" }),
    cardBrand: z
      .string()
      .trim()
      .min(1)
      .max(20)
      .regex(/^[A-Za-z][A-Za-z ._-]*$/, "expected a card brand name")
      .openapi({ example: "visa" }),
    cardLast4: z
      .string()
      .regex(/^\d{4}$/, "expected the last 4 digits")
      .openapi({ example: "4242" }),
    expMonth: z.number().int().min(1).max(12),
    expYear: z.number().int().min(2000).max(2100),
    setAsDefault: z.boolean().optional(),
  })
  .openapi("AttachPaymentMethodRequest", {
    example: {
      portalToken: "pt_Hq2Lm5Np8Rs1Tv4Wx7Yz0Ab3",
      paymentMethodId: "pm_3kT9x0aQw2LmNpR7",
      cardBrand: "visa",
      cardLast4: "4242",
      expMonth: 12,
      expYear: 2029,
      setAsDefault: true,
    },
  });

export const attachResponseSchema = z
  .object({
    data: z.object({
      status: z.literal("ATTACHED"),
      paymentMethod: z.object({
        paymentMethodId: z.string(),
        brand: z.string(),
        last4: z.string(),
        expMonth: z.number(),
        expYear: z.number(),
      }),
    }),
  })
  .openapi("AttachPaymentMethodResponse", {
    example: {
      data: {
        status: "ATTACHED",
        paymentMethod: {
          paymentMethodId: "pm_3kT9x0aQw2LmNpR7",
          brand: "visa",
          last4: "4242",
          expMonth: 12,
          expYear: 2029,
        },
      },
    },
  });
