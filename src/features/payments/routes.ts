import { apiRoute } from "../../platform/http/api-route";
import { featureRouter } from "../../platform/http/router";
import { cardDataGuardErrors, noRawCardData } from "../../platform/card-data/card-data";
import { cardSetupPages } from "./pages";
import { attachRequestSchema, attachResponseSchema } from "./schemas";
import { attachPaymentMethod } from "./service";

const attach = apiRoute({
  operationId: "attachPaymentMethod",
  security: [],
  method: "post",
  path: "/v1/hotel-ea/payment-methods/attach",
  tags: ["Payments"],
  summary: "Attach a tokenised card to the actor behind a one-time portal token (called by the card-setup page)",
  description: "Called by the /card-setup page, not by partners.",
  middleware: [noRawCardData()] as const,
  request: { body: { required: true, content: { "application/json": { schema: attachRequestSchema } } } },
  errors: [...cardDataGuardErrors, "invalid_portal_token", "card_expired"],
  responses: {
    200: { description: "Attached", content: { "application/json": { schema: attachResponseSchema } } },
  },
});

export const paymentRoutes = featureRouter()
  .openapi(attach, async (c) => {
    const result = await attachPaymentMethod(c.get("db"), c.get("services").pageKeys, c.req.valid("json"));
    return c.json({ data: result }, 200);
  })
  .route("/", cardSetupPages);
