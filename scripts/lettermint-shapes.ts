/**
 * Reads the response types of Lettermint's Node SDK (node_modules/lettermint/dist/index.d.ts, the
 * pinned devDependency) with the TypeScript compiler API and writes, for every method of the SDK
 * that calls the API, the JSON shape its answer is declared to have: test/contract/lettermint-shapes.json.
 * The contract test (test/contract/lettermint.test.ts) checks Posthorn's answers against it and
 * fails when this file differs from what this script generates now.
 *
 *   bun scripts/lettermint-shapes.ts          # rewrite the file
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/** A JSON shape: what a value of a declared type looks like on the wire. */
export type Shape =
  | { kind: "string" | "number" | "boolean" | "null" | "unknown" }
  | { kind: "literal"; value: string | number | boolean }
  | { kind: "array"; items: Shape }
  | { kind: "record"; values: Shape }
  | { kind: "object"; props: Record<string, { optional: boolean; shape: Shape }> }
  | { kind: "union"; of: Shape[] }
  | { kind: "ref"; name: string };

export interface SdkMethod {
  /** How a caller names it: `email.send`, `api.ping`, `webhooks.delivery`. */
  name: string;
  /** The declared type of the resolved answer. */
  returns: Shape;
}

export interface ShapesFile {
  sdk: string;
  methods: SdkMethod[];
  /** Named types the shapes refer to. */
  types: Record<string, Shape>;
}

const root = join(import.meta.dir, "..");
export const SHAPES_PATH = join(root, "test", "contract", "lettermint-shapes.json");
const DTS = join(root, "node_modules", "lettermint", "dist", "index.d.ts");

/** Classes whose methods call the API, by the name a caller reaches them under. */
const ENDPOINTS: Record<string, string> = {
  EmailEndpoint: "email",
  ApiClient: "api",
  DomainsEndpoint: "domains",
  MessagesEndpoint: "messages",
  ProjectsEndpoint: "projects",
  RoutesEndpoint: "routes",
  StatsEndpoint: "stats",
  SuppressionsEndpoint: "suppressions",
  TeamEndpoint: "team",
  WebhooksEndpoint: "webhooks",
};

export function generateShapes(): ShapesFile {
  const program = ts.createProgram([DTS], { strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(DTS)!;
  const types: Record<string, Shape> = {};

  const nameOf = (type: ts.Type): string | null => {
    const alias = type.aliasSymbol?.getName();
    if (alias && !type.aliasTypeArguments) return alias;
    const symbol = type.getSymbol();
    if (symbol && symbol.flags & ts.SymbolFlags.Interface) return symbol.getName();
    return null;
  };

  const shapeOf = (type: ts.Type, top = false): Shape => {
    const f = type.flags;
    if (f & ts.TypeFlags.Any || f & ts.TypeFlags.Unknown) return { kind: "unknown" };
    if (f & ts.TypeFlags.StringLiteral) return { kind: "literal", value: (type as ts.StringLiteralType).value };
    if (f & ts.TypeFlags.NumberLiteral) return { kind: "literal", value: (type as ts.NumberLiteralType).value };
    if (f & ts.TypeFlags.BooleanLiteral) return { kind: "boolean" };
    if (f & ts.TypeFlags.String) return { kind: "string" };
    if (f & ts.TypeFlags.Number) return { kind: "number" };
    if (f & ts.TypeFlags.Boolean) return { kind: "boolean" };
    if (f & ts.TypeFlags.Null) return { kind: "null" };
    if (checker.isArrayType(type)) return { kind: "array", items: shapeOf(checker.getTypeArguments(type as ts.TypeReference)[0]!) };
    const name = top ? null : nameOf(type);
    if (name) {
      if (!(name in types)) {
        types[name] = { kind: "unknown" }; // a placeholder while it is built: types refer to themselves
        types[name] = shapeOf(type, true);
      }
      return { kind: "ref", name };
    }
    if (type.isUnion()) {
      const of: Shape[] = [];
      for (const member of type.types) {
        if (member.flags & ts.TypeFlags.Undefined) continue;
        const s = shapeOf(member);
        if (!of.some((o) => JSON.stringify(o) === JSON.stringify(s))) of.push(s);
      }
      return of.length === 1 ? of[0]! : { kind: "union", of };
    }
    if (f & ts.TypeFlags.Object) {
      const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
      if (index) return { kind: "record", values: shapeOf(index.type) };
      const props: Record<string, { optional: boolean; shape: Shape }> = {};
      for (const p of checker.getPropertiesOfType(type)) {
        const declared = checker.getTypeOfSymbolAtLocation(p, source);
        props[p.getName()] = { optional: (p.flags & ts.SymbolFlags.Optional) !== 0, shape: shapeOf(declared) };
      }
      return { kind: "object", props };
    }
    return { kind: "unknown" };
  };

  const methods: SdkMethod[] = [];
  for (const statement of source.statements) {
    if (!ts.isClassDeclaration(statement) || !statement.name) continue;
    const prefix = ENDPOINTS[statement.name.text];
    if (!prefix) continue;
    for (const member of statement.members) {
      if (!ts.isMethodDeclaration(member) || !member.name || !ts.isIdentifier(member.name)) continue;
      if (member.modifiers?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.StaticKeyword)) continue;
      const signature = checker.getSignatureFromDeclaration(member)!;
      const result = checker.getReturnTypeOfSignature(signature);
      // The builder's setters return `this`; only the calls that answer with a Promise reach the API.
      if (result.getSymbol()?.getName() !== "Promise") continue;
      const resolved = checker.getTypeArguments(result as ts.TypeReference)[0]!;
      methods.push({ name: `${prefix}.${member.name.text}`, returns: shapeOf(resolved) });
    }
  }
  const sdk = JSON.parse(readFileSync(join(root, "node_modules", "lettermint", "package.json"), "utf8")).version as string;
  const sorted = Object.fromEntries(Object.entries(types).sort(([a], [b]) => a.localeCompare(b)));
  return { sdk, methods, types: sorted };
}

/** JSON with one line per method and per type, so a diff shows which changed. */
export function renderShapes(file: ShapesFile): string {
  const methods = file.methods.map((m) => `    ${JSON.stringify(m)}`).join(",\n");
  const types = Object.entries(file.types).map(([name, shape]) => `    ${JSON.stringify(name)}: ${JSON.stringify(shape)}`).join(",\n");
  return `{\n  "sdk": ${JSON.stringify(file.sdk)},\n  "methods": [\n${methods}\n  ],\n  "types": {\n${types}\n  }\n}\n`;
}

if (import.meta.main) {
  const file = generateShapes();
  writeFileSync(SHAPES_PATH, renderShapes(file));
  console.log(`${SHAPES_PATH}: ${file.methods.length} methods, ${Object.keys(file.types).length} named types (lettermint ${file.sdk})`);
}
