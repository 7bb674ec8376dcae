// oidc-provider ships no types (a devDependency, used only by test/support/oidc-provider.ts).
declare module "oidc-provider" {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Provider = any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const Provider: any;
  export default Provider;
}
