import type { Database } from "bun:sqlite";
import { DomainRepository, InboundDomainRepository } from "./domains.ts";
import { EventRepository } from "./events.ts";
import { MessageRepository } from "./messages.ts";
import { ProjectRepository } from "./projects.ts";
import { RouteRepository } from "./routes.ts";
import { SettingsRepository } from "./settings.ts";
import { SqliteExecutor, type SqlExecutor } from "./sql.ts";
import { SuppressionRepository } from "./suppressions.ts";
import { TeamRepository } from "./teams.ts";
import { WebhookRepository } from "./webhooks.ts";
import type { Writer } from "./writer.ts";

/** Every repository, bound to one executor: the engine's reads, or one transaction's writes. */
export interface Repositories {
  domains: DomainRepository;
  inboundDomains: InboundDomainRepository;
  events: EventRepository;
  messages: MessageRepository;
  projects: ProjectRepository;
  routes: RouteRepository;
  settings: SettingsRepository;
  suppressions: SuppressionRepository;
  teams: TeamRepository;
  webhooks: WebhookRepository;
}

export function repositories(db: SqlExecutor): Repositories {
  return {
    domains: new DomainRepository(db),
    inboundDomains: new InboundDomainRepository(db),
    events: new EventRepository(db),
    messages: new MessageRepository(db),
    projects: new ProjectRepository(db),
    routes: new RouteRepository(db),
    settings: new SettingsRepository(db),
    suppressions: new SuppressionRepository(db),
    teams: new TeamRepository(db),
    webhooks: new WebhookRepository(db),
  };
}

/**
 * The persistence layer as services see it: `read` for queries, `write(fn)` for changes, which
 * run together in one transaction (on SQLite, one savepoint of the group commit; inside a
 * request, part of its unit of work). `fn` awaits only repositories, never the network.
 */
export interface Store {
  readonly read: Repositories;
  write<T>(fn: (tx: Repositories) => T | Promise<T>): Promise<T>;
}

/** SQLite: one connection for reads and writes, writes through the group-commit writer. */
export class SqliteStore implements Store {
  readonly read: Repositories;
  constructor(
    sqlite: Database,
    private readonly writer: Writer,
  ) {
    this.read = repositories(new SqliteExecutor(sqlite));
  }

  write<T>(fn: (tx: Repositories) => T | Promise<T>): Promise<T> {
    // One connection: inside the writer's savepoint the same repositories are the transaction's.
    return this.writer.write(() => fn(this.read));
  }
}
