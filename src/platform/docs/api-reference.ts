/**
 * The API reference at /docs is Swagger UI from the pinned `swagger-ui-dist` package, shipped as
 * static assets (snippet/vendor/swagger-ui, copied by `npm run assets`): no CDN at run time.
 * snippet/docs.html loads these files and snippet/docs.js starts the UI on /openapi.json.
 */
export const SWAGGER_UI_ASSET_DIR = "/vendor/swagger-ui";

/** Files copied verbatim from node_modules/swagger-ui-dist (the licence files go with the code). */
export const SWAGGER_UI_FILES = ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"] as const;
