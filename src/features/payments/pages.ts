import { z } from "@hono/zod-openapi";
import { apiRoute } from "../../platform/http/api-route";
import { featureRouter } from "../../platform/http/router";
import { escapeHtml, htmlPage } from "../../platform/http/html-page";
import { setupLinkState, type SetupLinkState } from "./service";

/** What a traveller reads instead of the card form when the link cannot be used. */
export const SETUP_LINK_MESSAGES: Record<
  Exclude<SetupLinkState, "ready">,
  { status: 404 | 410; title: string; text: string }
> = {
  used: {
    status: 410,
    title: "This link has already been used",
    text: "A card was already added with this link, so it cannot be used again. If you still need to add a card, ask the assistant in your chat for a new link.",
  },
  replaced: {
    status: 410,
    title: "There is a newer link",
    text: "This link was replaced by a newer one. Please open the most recent card link the assistant sent you in your chat.",
  },
  expired: {
    status: 410,
    title: "This link has expired",
    text: "Card links work for 30 minutes. Ask the assistant in your chat for a new link.",
  },
  unknown: {
    status: 404,
    title: "This link is not valid",
    text: "We could not find this card link. Please check that you opened the whole link, or ask the assistant in your chat for a new one.",
  },
};

const html = { "text/html": { schema: z.string() } };
const route = (path: string, operationId: string) =>
  apiRoute({
    operationId,
    security: [],
    method: "get",
    path,
    tags: ["Payments"],
    summary: "Card-setup page behind a chat setupUrl: the card form, or why the link cannot be used",
    description: "HTML for the guest: a chat payment's setupUrl.",
    request: {
      query: z.object({ token: z.string().max(200).optional().openapi({ example: "cst_4Hk9Qw2Zp7Lm3Xv8" }) }),
    },
    errors: [],
    responses: {
      200: { description: "The card form", content: html },
      404: { description: "Unknown link", content: html },
      410: { description: "Link used, replaced by a newer one, or expired", content: html },
    },
  });

export const cardSetupPages = featureRouter();
for (const [path, operationId] of [
  ["/card-setup", "getCardSetupPage"],
  ["/card-setup.html", "getCardSetupPageHtml"],
] as const) {
  cardSetupPages.openapi(route(path, operationId), async (c) => {
    const token = c.req.valid("query").token;
    const state = token ? await setupLinkState(c.get("db"), c.get("services").pageKeys, token) : "unknown";
    if (state !== "ready") {
      const { status, title, text } = SETUP_LINK_MESSAGES[state];
      return c.html(htmlPage(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`), status);
    }
    // The form itself is the static page (its script is /card-setup.js).
    const asset = await c.env.ASSETS.fetch(new URL("/card-setup", c.req.url));
    return c.html(await asset.text(), 200);
  });
}
