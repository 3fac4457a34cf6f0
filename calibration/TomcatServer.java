// The calibration twin of blocking-server: embedded Tomcat 10.1 with its
// NIO connector (an acceptor, a poller, a pool of handler threads) and one
// plain servlet, as a Spring MVC application runs on it. A request holds a
// handler thread from its first byte to its answer: /posts/{id} sleeps in
// Thread.sleep for the slow downstream's 300 ms, /users/{id} waits for
// Postgres in JDBC (pgjdbc through a HikariCP pool of our pool's size, one
// prepared statement), /cpu runs the same loop as ours.
//
// Flags: --bind host:port, --handler-threads N (Tomcat's maxThreads, 200 as
// Tomcat's default and ours), --accept-count N (the listen backlog, 100 as
// Tomcat's and Spring Boot's default; ours ask for 4096),
// --database-url postgres://... and --db-pool-size N (no URL: /users
// answers 503), --acquire-timeout-ms N, --no-pin-events (with --virtual:
// no JFR stream counting pinned virtual threads, PinnedThreads), and
// --virtual: the connector's executor becomes
// Executors.newVirtualThreadPerTaskExecutor(), a virtual thread per
// request (Java 21 or later; looked up by reflection, so that this file
// compiles with --release 17 and says plainly what it needs on a JDK 17).
//
// /metrics adds to the request counters what a Spring Boot actuator shows
// of Tomcat and the JVM: the handler pool's threads (busy, current, max)
// and queue, the connections, the JIT's and the collectors' time
// (JvmMetrics), and with --virtual the virtual threads that pinned their
// carrier, per route (PinnedThreads).

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.http11.Http11NioProtocol;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

public final class TomcatServer {
    /** The routes this server has, in the contract table's order. */
    static final String[] ROUTES = {"/health", "/cpu", "/users/{id}", "/posts/{id}", "/metrics"};
    /** Each route's handler method in App, by name (for PinnedThreads). */
    static final Map<String, String> ROUTE_OF_HANDLER = Map.of(
            "health", "/health", "cpu", "/cpu", "user", "/users/{id}", "post", "/posts/{id}", "metrics", "/metrics");

    public static void main(String[] args) throws Exception {
        Flags f;
        try {
            f = Flags.parse(args,
                    Set.of("--bind", "--handler-threads", "--accept-count", "--database-url", "--db-pool-size",
                            "--acquire-timeout-ms"),
                    Set.of("--virtual", "--no-pin-events"));
        } catch (IllegalArgumentException e) {
            System.err.println("tomcat: " + e.getMessage());
            System.exit(2);
            return;
        }
        String[] bind = Flags.hostPort(f.get("--bind", "127.0.0.1:8090"));
        int threads = f.intOf("--handler-threads", 200);
        boolean virtual = f.has("--virtual");
        Executor executor = null;
        if (virtual) {
            executor = virtualThreadPerTask();
            if (executor == null) {
                System.err.println("tomcat: --virtual needs a JDK 21 or later (Executors.newVirtualThreadPerTaskExecutor); this JDK is "
                        + Runtime.version());
                System.exit(2);
                return;
            }
        }
        Users users = Users.open(f.get("--database-url", null), f.intOf("--db-pool-size", 10),
                f.intOf("--acquire-timeout-ms", 2000));

        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createTempDirectory("bench-tomcat-").toString());
        Connector connector = new Connector("org.apache.coyote.http11.Http11NioProtocol");
        connector.setPort(Integer.parseInt(bind[1]));
        Http11NioProtocol protocol = (Http11NioProtocol) connector.getProtocolHandler();
        protocol.setAddress(InetAddress.getByName(bind[0]));
        protocol.setMaxThreads(threads);
        // The listen backlog: connections the kernel completes before the
        // acceptor takes them. Past it the kernel drops a client's SYN and
        // the client tries again 1 s later, then 3 s: latency no thread of
        // Tomcat's ever sees.
        protocol.setAcceptCount(f.intOf("--accept-count", 100));
        // Keep-alive as ours: no limit on requests per connection, and the
        // same 10 s for a request head (and between requests).
        protocol.setMaxKeepAliveRequests(-1);
        protocol.setConnectionTimeout(10_000);
        if (executor != null) {
            protocol.setExecutor(executor);
        }
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        PinnedThreads pins = PinnedThreads.start(virtual, !f.has("--no-pin-events"), App.class.getName(),
                ROUTE_OF_HANDLER);
        Metrics metrics = new Metrics(virtual ? "tomcat-virtual" : "tomcat");
        Tomcat.addServlet(context, "app", new App(users, metrics, new Pool(protocol), pins));
        context.addServletMappingDecoded("/*", "app");
        tomcat.start();
        System.out.println("tomcat: listening on " + bind[0] + ":" + bind[1] + ", "
                + (virtual ? "a virtual thread per request" : threads + " handler threads")
                + ", Java " + Runtime.version() + "; " + pins.watching());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    /** Executors.newVirtualThreadPerTaskExecutor(), or null before Java 21. */
    static Executor virtualThreadPerTask() {
        try {
            return (Executor) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    /** The one servlet: every route, on the handler thread that took the request. */
    static final class App extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient Users users;
        private final transient Metrics metrics;
        private final transient Pool pool;
        private final transient PinnedThreads pins;

        App(Users users, Metrics metrics, Pool pool, PinnedThreads pins) {
            this.users = users;
            this.metrics = metrics;
            this.pool = pool;
            this.pins = pins;
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            metrics.started();
            String route = Contract.UNMATCHED;
            int status = 500;
            try {
                String[] m = Contract.match(req.getRequestURI(), ROUTES);
                Contract.Answer a;
                if (m == null) {
                    a = Contract.noRoute();
                } else {
                    route = m[0];
                    a = answer(req.getMethod(), m[0], m[1], req.getQueryString());
                }
                status = a.status;
                resp.setStatus(a.status);
                resp.setContentType(a.contentType);
                resp.setContentLength(a.body.length);
                if (a.allow != null) {
                    resp.setHeader("Allow", a.allow);
                }
                resp.getOutputStream().write(a.body);
            } finally {
                metrics.finished(route, status);
            }
        }

        private Contract.Answer answer(String method, String route, String id, String query) {
            if (!Contract.allows(method)) {
                return Contract.methodNotAllowed();
            }
            try {
                // One handler per route, named as its Rust twin's
                // (crates/blocking-server/src/handlers.rs): a pinned virtual
                // thread is put to its route by the handler on its stack.
                switch (route) {
                    case "/health":
                        return health();
                    case "/cpu":
                        return cpu(query);
                    case "/users/{id}":
                        return user(id);
                    case "/posts/{id}":
                        return post(id);
                    case "/metrics":
                        return metrics();
                    default:
                        return Contract.noRoute();
                }
            } catch (Contract.BadRequest e) {
                return e.answer();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Contract.internal();
            }
        }

        private Contract.Answer health() {
            return Contract.health();
        }

        private Contract.Answer cpu(String query) throws Contract.BadRequest {
            return Contract.cpu(Contract.parseCpuN(query));
        }

        private Contract.Answer user(String id) throws Contract.BadRequest {
            return users.find(Contract.parsePathId(id));
        }

        private Contract.Answer post(String id) throws Contract.BadRequest, InterruptedException {
            long postId = Contract.parsePathId(id);
            // The slow downstream: this handler thread sleeps, as
            // blocking-server's post handler does.
            Thread.sleep(Contract.POST_DELAY_MS);
            return Contract.post(postId);
        }

        private Contract.Answer metrics() {
            StringBuilder b = new StringBuilder(metrics.render());
            JvmMetrics.render(b, metrics.server());
            pool.render(b, metrics.server());
            pins.render(b, metrics.server());
            return Contract.text(b.toString());
        }
    }

    /**
     * The connector's handler pool and connections, under Micrometer's names
     * for them (Spring Boot's actuator: tomcat_threads_*, tomcat_connections_*),
     * and the pool's queue: requests read and waiting for a free thread.
     */
    static final class Pool {
        private final Http11NioProtocol protocol;

        Pool(Http11NioProtocol protocol) {
            this.protocol = protocol;
        }

        void render(StringBuilder b, String server) {
            // A virtual thread per request has no pool (and no queue): only
            // the connections are told.
            if (protocol.getExecutor() instanceof ThreadPoolExecutor) {
                ThreadPoolExecutor pool = (ThreadPoolExecutor) protocol.getExecutor();
                Metrics.single(b, server, "tomcat_threads_busy_threads",
                        "Handler threads serving a request now (this one's included).", "gauge",
                        pool.getActiveCount());
                Metrics.single(b, server, "tomcat_threads_current_threads",
                        "Handler threads started (the pool grows to maxThreads on demand).", "gauge",
                        pool.getPoolSize());
                Metrics.single(b, server, "tomcat_threads_config_max_threads",
                        "The handler pool's maxThreads.", "gauge", pool.getMaximumPoolSize());
                Metrics.single(b, server, "tomcat_threads_queued_tasks",
                        "Sockets with a request to serve, waiting in the pool's queue for a free thread.", "gauge",
                        pool.getQueue().size());
            }
            Metrics.single(b, server, "tomcat_connections_current_connections",
                    "Connections open now (accepted, not yet closed).", "gauge", protocol.getConnectionCount());
            Metrics.single(b, server, "tomcat_connections_config_max_connections",
                    "maxConnections: past it, the acceptor stops accepting.", "gauge",
                    protocol.getMaxConnections());
            Metrics.single(b, server, "tomcat_connections_config_accept_count",
                    "acceptCount: the listen backlog asked of the kernel.", "gauge", protocol.getAcceptCount());
        }
    }

    /** /users/{id}: JDBC through HikariCP, as Spring's JdbcTemplate would. */
    static final class Users {
        private final HikariDataSource pool;

        private Users(HikariDataSource pool) {
            this.pool = pool;
        }

        /** A pool of `size` connections to `url` (postgres://user[:password]@host:port/db). */
        static Users open(String url, int size, int acquireTimeoutMs) {
            if (url == null) {
                return new Users(null);
            }
            URI u = URI.create(url);
            String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/postgres" : u.getRawPath();
            // Our drivers talk to Postgres in plain text (tokio-postgres's
            // NoTls); pgjdbc would try TLS first (sslmode=prefer) and, where
            // Postgres has it on, encrypt every query: a cost the twin does
            // not pay. So plain text here too, unless the URL says otherwise.
            String query = u.getRawQuery() == null ? "" : u.getRawQuery();
            if (!query.contains("sslmode=")) {
                query = query.isEmpty() ? "sslmode=disable" : query + "&sslmode=disable";
            }
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl("jdbc:postgresql://" + u.getHost() + ":" + (u.getPort() < 0 ? 5432 : u.getPort())
                    + path + "?" + query);
            String info = u.getUserInfo();
            if (info != null) {
                int colon = info.indexOf(':');
                config.setUsername(colon < 0 ? info : info.substring(0, colon));
                if (colon >= 0) {
                    config.setPassword(info.substring(colon + 1));
                }
            }
            config.setPoolName("calibration");
            config.setMaximumPoolSize(size);
            config.setMinimumIdle(size);
            config.setConnectionTimeout(Math.max(250, acquireTimeoutMs));
            return new Users(new HikariDataSource(config));
        }

        Contract.Answer find(long id) {
            if (pool == null) {
                return Contract.databaseUnavailable();
            }
            try (Connection c = pool.getConnection();
                    PreparedStatement s = c.prepareStatement(Contract.SELECT_USER_BY_ID)) {
                s.setLong(1, id);
                try (ResultSet r = s.executeQuery()) {
                    if (!r.next()) {
                        return Contract.userNotFound(id);
                    }
                    return Contract.user(r.getLong(1), r.getString(2), r.getString(3),
                            r.getObject(4, OffsetDateTime.class), r.getObject(5, OffsetDateTime.class));
                }
            } catch (SQLTransientConnectionException e) {
                System.err.println("tomcat: /users/" + id + ": no pooled connection in time: " + e.getMessage());
                return Contract.databaseUnavailable();
            } catch (SQLException e) {
                System.err.println("tomcat: /users/" + id + ": " + e);
                String state = e.getSQLState();
                boolean away = state != null
                        && (state.startsWith("08") || state.equals("53300") || state.equals("57P01"));
                return away ? Contract.databaseUnavailable() : Contract.internal();
            }
        }
    }
}
