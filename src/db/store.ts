import type { Database } from "bun:sqlite";
import type { BackgroundCheckpointer } from "./background-checkpointer.ts";
import { AccountRepository } from "./accounts.ts";
import { AuditLogRepository } from "./audit-log.ts";
import { BlocklistRepository } from "./blocklists.ts";
import { DeliveryRepository } from "./deliveries.ts";
import { DeliverabilityReportRepository } from "./deliverability-reports.ts";
import { DomainRepository, InboundDomainRepository } from "./domains.ts";
import { EventRepository } from "./events.ts";
import { IdempotencyRepository } from "./idempotency.ts";
import { InboundAddressRepository } from "./inbound-addresses.ts";
import { JobQueue, JobSignals, type EnqueueListener } from "./job-queue.ts";
import { DestinationRepository } from "./destinations.ts";
import { LockRepository } from "./locks.ts";
import { MessageContentRepository } from "./message-contents.ts";
import { MetricCountersRepository } from "./metric-counters.ts";
import { MessageRepository } from "./messages.ts";
import { ProjectRepository } from "./projects.ts";
import { QueueRepository } from "./queue.ts";
import { RateLimitRepository } from "./rate-limits.ts";
import { RecipientRepository } from "./recipients.ts";
import { ReportForwardingRepository } from "./report-forwarding.ts";
import { ScheduledRepository } from "./scheduled.ts";
import { RetentionRepository } from "./retention.ts";
import { RouteRepository } from "./routes.ts";
import { SettingsRepository } from "./settings.ts";
import { StatsRepository } from "./stats.ts";
import { SqliteExecutor, type SqlExecutor } from "./sql.ts";
import { SuppressionRepository } from "./suppressions.ts";
import { TeamRepository } from "./teams.ts";
import { TlsCertificateRepository } from "./tls-certificates.ts";
import { TrackingRepository } from "./tracking.ts";
import { WarmupRepository } from "./warmups.ts";
import { WebhookRepository } from "./webhooks.ts";
import type { UnitOfWork, Writer, WriteOptions } from "./writer.ts";

/** Every repository, bound to one executor: the engine's reads, or one transaction's writes. */
export interface Repositories {
  accounts: AccountRepository;
  auditLog: AuditLogRepository;
  blocklists: BlocklistRepository;
  deliveries: DeliveryRepository;
  deliverabilityReports: DeliverabilityReportRepository;
  domains: DomainRepository;
  inboundDomains: InboundDomainRepository;
  events: EventRepository;
  idempotency: IdempotencyRepository;
  inboundAddresses: InboundAddressRepository;
  jobs: JobQueue;
  destinations: DestinationRepository;
  locks: LockRepository;
  messageContents: MessageContentRepository;
  messages: MessageRepository;
  metricCounters: MetricCountersRepository;
  projects: ProjectRepository;
  queue: QueueRepository;
  rateLimits: RateLimitRepository;
  recipients: RecipientRepository;
  reportForwarding: ReportForwardingRepository;
  scheduled: ScheduledRepository;
  retention: RetentionRepository;
  routes: RouteRepository;
  settings: SettingsRepository;
  stats: StatsRepository;
  suppressions: SuppressionRepository;
  teams: TeamRepository;
  tlsCertificates: TlsCertificateRepository;
  tracking: TrackingRepository;
  warmups: WarmupRepository;
  webhooks: WebhookRepository;
}

export function repositories(db: SqlExecutor, signals: EnqueueListener = new JobSignals()): Repositories {
  return {
    accounts: new AccountRepository(db),
    auditLog: new AuditLogRepository(db),
    blocklists: new BlocklistRepository(db),
    deliveries: new DeliveryRepository(db),
    deliverabilityReports: new DeliverabilityReportRepository(db),
    domains: new DomainRepository(db),
    inboundDomains: new InboundDomainRepository(db),
    events: new EventRepository(db, signals),
    idempotency: new IdempotencyRepository(db),
    inboundAddresses: new InboundAddressRepository(db),
    jobs: new JobQueue(db, signals),
    destinations: new DestinationRepository(db),
    locks: new LockRepository(db),
    messageContents: new MessageContentRepository(db),
    messages: new MessageRepository(db),
    metricCounters: new MetricCountersRepository(db),
    projects: new ProjectRepository(db),
    queue: new QueueRepository(db),
    rateLimits: new RateLimitRepository(db),
    recipients: new RecipientRepository(db),
    reportForwarding: new ReportForwardingRepository(db),
    scheduled: new ScheduledRepository(db),
    retention: new RetentionRepository(db),
    routes: new RouteRepository(db),
    settings: new SettingsRepository(db),
    stats: new StatsRepository(db),
    suppressions: new SuppressionRepository(db),
    teams: new TeamRepository(db),
    tlsCertificates: new TlsCertificateRepository(db),
    tracking: new TrackingRepository(db),
    warmups: new WarmupRepository(db),
    webhooks: new WebhookRepository(db),
  };
}

/** Commits made and writes they carried, for tests and metrics. */
export interface StoreStats {
  commits: number;
  writes: number;
  largestBatch: number;
}

/**
 * The persistence layer as services see it: `read` for queries, `write(fn)` for changes, which
 * run together in one transaction (on SQLite, one savepoint of the group commit). Inside a unit
 * of work (a request) the writes commit only with its successful answer. `fn` awaits only
 * repositories, never the network.
 */
export interface Store {
  readonly read: Repositories;
  /** `opts` may let the engine skip work a write does not need (WriteOptions says when; PostgreSQL needs none of it). */
  write<T>(fn: (tx: Repositories) => T | Promise<T>, opts?: WriteOptions): Promise<T>;
  /**
   * One statement committed at once in a transaction of its own, without waiting for a group:
   * for a record whose value is in being written the instant something happens (a remote
   * server's 250), not in being acknowledged.
   */
  writeNow<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Runs `fn` as a unit of work: its writes commit only once the unit is finished with ok. */
  withUnit<T>(fn: () => T): T;
  /** Runs `fn` outside any unit of work (bookkeeping on the side, jobs a request wakes). */
  detached<T>(fn: () => T): T;
  currentUnit(): Pick<UnitOfWork, "finish"> | undefined;
  /** Enqueues reach the job runner of this process through here. */
  readonly signals: JobSignals;
  readonly stats: StoreStats;
  /** Resolves when the database answers; rejects with DatabaseUnavailableError when it cannot be reached. */
  ping(): Promise<void>;
  /** Commits what is pending and closes the engine. */
  close(): Promise<void>;
}

/** SQLite: one connection for reads and writes, writes through the group-commit writer. */
export class SqliteStore implements Store {
  readonly read: Repositories;
  readonly signals = new JobSignals();
  constructor(
    /** The connection, for what only SQLite has (tests of its storage, benchmarks); services use read and write. */
    readonly sqlite: Database,
    private readonly writer: Writer,
    private readonly checkpointer: BackgroundCheckpointer | null = null,
  ) {
    this.read = repositories(new SqliteExecutor(sqlite), this.signals);
  }

  write<T>(fn: (tx: Repositories) => T | Promise<T>, opts?: WriteOptions): Promise<T> {
    // One connection: inside the writer's savepoint the same repositories are the transaction's.
    return this.writer.write(() => fn(this.read), opts);
  }

  writeNow<T>(fn: (tx: Repositories) => Promise<T>): Promise<T> {
    // The SQLite executor runs a statement as it is called, so the one statement is done when fn returns.
    try {
      return this.writer.commitNow(() => fn(this.read));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  withUnit<T>(fn: () => T): T {
    return this.writer.withUnit(fn);
  }

  detached<T>(fn: () => T): T {
    return this.writer.detached(fn);
  }

  currentUnit(): UnitOfWork | undefined {
    return this.writer.currentUnit();
  }

  get stats(): StoreStats {
    return this.writer.stats;
  }

  async ping(): Promise<void> {
    // An embedded database is there as long as the process is.
  }

  async close(): Promise<void> {
    // An asynchronous write still draining would otherwise find the connection closed under it.
    await this.writer.stop();
    await this.checkpointer?.stop();
    this.sqlite.close();
  }
}
