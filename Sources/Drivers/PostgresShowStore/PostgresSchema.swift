/// The database's schema, as numbered migrations: the table `stream_migrations` holds one row per migration that
/// ran. A new version appends a migration; a database from a newer `stream` (a version above the last here) is
/// refused rather than misread.
///
/// The tables follow the SQLite store's (`SQLiteSchema`) column for column, but `user` is `user_id` (a reserved
/// word here) and `until` is `until_time`. Text compares by bytes for equality in PostgreSQL's deterministic
/// collations, as in SQLite, so `zoë` precomposed and decomposed stay two users.
enum PostgresSchema {
    /// Two-key advisory locks: this class, and one object per use.
    static let lockClass: Int32 = 0x5354_524D  // "STRM"
    /// Held (for the transaction) while migrations run: a second node starting waits, then finds them done.
    static let migrationLock: Int32 = 1
    /// Held shared (for the session) by every node; taken exclusively only by a node that finds itself alone.
    static let nodeLock: Int32 = 2

    /// Made before the lock's migrations read it (inside the lock: two `CREATE TABLE IF NOT EXISTS` at once can
    /// collide in the catalog).
    static let bookkeeping = """
        CREATE TABLE IF NOT EXISTS stream_migrations (
            version integer PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """

    /// Each migration's statements, version 1 first.
    static let migrations: [String] = [
        // 1: shows, messages, bans, timeouts, the store's epoch; old chat is pruned by time.
        """
        CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
        CREATE TABLE shows (
            name text PRIMARY KEY,
            seq bigint NOT NULL DEFAULT 0,
            slow integer NOT NULL DEFAULT 0,
            pinned bigint,
            tiles bigint NOT NULL DEFAULT 0,
            ended boolean NOT NULL DEFAULT false,
            generation bigint NOT NULL DEFAULT 0,
            main text,
            key_hash text UNIQUE,
            key_nonce text
        );
        CREATE TABLE messages (
            show text NOT NULL,
            id bigint NOT NULL,
            user_id text,
            name text NOT NULL,
            role text NOT NULL,
            text text NOT NULL,
            time bigint NOT NULL,
            deleted boolean NOT NULL DEFAULT false,
            PRIMARY KEY (show, id)
        );
        CREATE INDEX messages_by_time ON messages (time);
        CREATE TABLE bans (show text NOT NULL, user_id text NOT NULL, PRIMARY KEY (show, user_id));
        CREATE TABLE timeouts (
            show text NOT NULL, user_id text NOT NULL, until_time bigint NOT NULL, PRIMARY KEY (show, user_id)
        );
        """,
    ]

    /// The version a database has once every migration ran.
    static var currentVersion: Int { migrations.count }
}
