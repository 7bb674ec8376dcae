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
