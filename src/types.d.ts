declare module "*.sql" {
  const text: string;
  export default text;
}

// Files imported `with { type: "file" }` (the docs UI's assets, src/http/openapi.ts): their path,
// embedded in the compiled binary.
declare module "swagger-ui-dist/*.js" {
  const path: string;
  export default path;
}
declare module "*.css" {
  const path: string;
  export default path;
}
declare module "*.png" {
  const path: string;
  export default path;
}

// html-to-text (mailparser's, pinned by it) ships no types: the one function
// mail/compose-message.ts calls for the route setting generate_plaintext_fallback.
declare module "html-to-text" {
  export function convert(html: string, options?: Record<string, unknown>): string;
}
