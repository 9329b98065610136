// Starts the vendored Swagger UI on this Worker's own OpenAPI document. A file, not an inline
// script, so /docs keeps the same strict Content-Security-Policy as every other page.
"use strict";
window.ui = window.SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  // No top bar (its URL box invites loading other documents) and no online validator badge.
  presets: [window.SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
  validatorUrl: null,
  deepLinking: true,
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  filter: true,
});
// The guide above the reference links operations by their deep link (#/Tag/operationId); Swagger UI
// reads the hash only once, at load, so a click on a later link opens and scrolls to it here.
window.addEventListener("hashchange", () => window.ui.layoutActions.parseDeepLinkHash(window.location.hash));
