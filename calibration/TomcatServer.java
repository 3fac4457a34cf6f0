// The calibration twin of blocking-server: embedded Tomcat 10.1 with its
// NIO connector (an acceptor, a poller, a pool of handler threads) and one
// plain servlet, as a Spring MVC application runs on it. A request holds a
// handler thread from its first byte to its answer: /posts/{id} sleeps in
// Thread.sleep for the slow downstream's 300 ms, /users/{id} waits for
// Postgres in JDBC (pgjdbc through a HikariCP pool of our pool's size, one
// prepared statement), /cpu runs the same loop as ours.
//
// Flags: --bind host:port, --handler-threads N (Tomcat's maxThreads, 200 as
// Tomcat's default and ours), --database-url postgres://... and
// --db-pool-size N (no URL: /users answers 503), --acquire-timeout-ms N,
// and --virtual: the connector's executor becomes
// Executors.newVirtualThreadPerTaskExecutor(), a virtual thread per
// request (Java 21 or later; looked up by reflection, so that this file
// compiles with --release 17 and says plainly what it needs on a JDK 17).

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
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.http11.Http11NioProtocol;

public final class TomcatServer {
    /** The routes this server has, in the contract table's order. */
    static final String[] ROUTES = {"/health", "/cpu", "/users/{id}", "/posts/{id}", "/metrics"};

    public static void main(String[] args) throws Exception {
        Flags f;
        try {
            f = Flags.parse(args,
                    Set.of("--bind", "--handler-threads", "--database-url", "--db-pool-size", "--acquire-timeout-ms"),
                    Set.of("--virtual"));
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
        Tomcat.addServlet(context, "app", new App(users, new Metrics(virtual ? "tomcat-virtual" : "tomcat")));
        context.addServletMappingDecoded("/*", "app");
        tomcat.start();
        System.out.println("tomcat: listening on " + bind[0] + ":" + bind[1] + ", "
                + (virtual ? "a virtual thread per request" : threads + " handler threads")
                + ", Java " + Runtime.version());
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

        App(Users users, Metrics metrics) {
            this.users = users;
            this.metrics = metrics;
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
                switch (route) {
                    case "/health":
                        return Contract.health();
                    case "/cpu":
                        return Contract.cpu(Contract.parseCpuN(query));
                    case "/users/{id}":
                        return users.find(Contract.parsePathId(id));
                    case "/posts/{id}": {
                        long postId = Contract.parsePathId(id);
                        // The slow downstream: this handler thread sleeps, as
                        // blocking-server's handle_post does.
                        Thread.sleep(Contract.POST_DELAY_MS);
                        return Contract.post(postId);
                    }
                    case "/metrics":
                        return Contract.text(metrics.render());
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
            String query = u.getRawQuery() == null ? "" : "?" + u.getRawQuery();
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl("jdbc:postgresql://" + u.getHost() + ":" + (u.getPort() < 0 ? 5432 : u.getPort())
                    + path + query);
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
