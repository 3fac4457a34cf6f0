// The HTTP contract of crates/contract, as far as the calibration servers
// serve it: the same statuses and the very same JSON bytes, so that a
// column on Tomcat or Netty measures the same answers as its Rust twin.
// Each constant and message below is copied from the contract crate
// (model.rs, error.rs, params.rs, posts.rs, workload.rs, sql.rs, routes.rs);
// bench's tests run the contract suite's cases against both Java servers.

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

final class Contract {
    private Contract() {}

    /** contract::posts::POST_DELAY: seed 001's slow downstream call. */
    static final long POST_DELAY_MS = 300;
    /** contract::posts::FIRST_FAILING_POST_ID. */
    static final long FIRST_FAILING_POST_ID = 10;
    /** contract::workload::DEFAULT_CPU_N and MAX_CPU_N. */
    static final long DEFAULT_CPU_N = 10_000_000L;
    static final long MAX_CPU_N = 100_000_000L;
    /** contract::sql::SELECT_USER_BY_ID, with JDBC's placeholder. */
    static final String SELECT_USER_BY_ID =
            "SELECT id, name, email, created_at, updated_at FROM users WHERE id = ?";
    /** The route label of a request no route matched (contract::routes::UNMATCHED). */
    static final String UNMATCHED = "unmatched";

    /** One answer: its status, body and content type, and a 405's Allow header. */
    static final class Answer {
        final int status;
        final byte[] body;
        final String contentType;
        final String allow;

        Answer(int status, String body, String contentType, String allow) {
            this.status = status;
            this.body = body.getBytes(StandardCharsets.UTF_8);
            this.contentType = contentType;
            this.allow = allow;
        }
    }

    /** A client's mistake found while reading the request: a 400 with its message. */
    static final class BadRequest extends Exception {
        BadRequest(String message) {
            super(message, null, false, false);
        }

        Answer answer() {
            return error(400, getMessage());
        }
    }

    static Answer json(String body) {
        return new Answer(200, body, "application/json", null);
    }

    /** The one error shape: {"error":"<message>"}. */
    static Answer error(int status, String message) {
        return new Answer(status, "{\"error\":" + jsonString(message) + "}", "application/json", null);
    }

    static Answer health() {
        return json("{\"health\":\"ok\"}");
    }

    static Answer noRoute() {
        return error(404, "no such route");
    }

    static Answer methodNotAllowed() {
        Answer e = error(405, "method not allowed");
        return new Answer(405, new String(e.body, StandardCharsets.UTF_8), e.contentType, "GET,HEAD");
    }

    static Answer internal() {
        return error(500, "internal server error");
    }

    static Answer databaseUnavailable() {
        return error(503, "database unavailable, try again later");
    }

    static Answer userNotFound(long id) {
        return error(404, "user " + id + " not found");
    }

    static Answer text(String body) {
        return new Answer(200, body, "text/plain; version=0.0.4", null);
    }

    /** contract::posts::post_after_delay: what /posts/{id} answers once its wait is over. */
    static Answer post(long id) {
        if (id >= FIRST_FAILING_POST_ID) {
            return error(500, "post " + id + " failed (ids from " + FIRST_FAILING_POST_ID
                    + " fail on purpose, as in seed 001)");
        }
        return json("{\"id\":" + id + ",\"content\":\"Post content is " + id + "\"}");
    }

    /** contract::workload::sqrt_sum: a sum of square roots, the same loop as ours. */
    static double sqrtSum(long n) {
        double sum = 0.0;
        for (long i = 0; i < n; i++) {
            sum += Math.sqrt((double) i);
        }
        return sum;
    }

    /** GET /cpu?n=: the loop, run by whichever thread calls this. */
    static Answer cpu(long n) {
        return json("{\"n\":" + n + ",\"result\":" + jsonNumber(sqrtSum(n)) + "}");
    }

    private static final DateTimeFormatter MICROS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'");

    /** contract::model::User, timestamps in RFC 3339 with microseconds and a Z. */
    static Answer user(long id, String name, String email, OffsetDateTime created, OffsetDateTime updated) {
        return json("{\"id\":" + id + ",\"name\":" + jsonString(name) + ",\"email\":" + jsonString(email)
                + ",\"created_at\":\"" + MICROS.format(created.withOffsetSameInstant(ZoneOffset.UTC))
                + "\",\"updated_at\":\"" + MICROS.format(updated.withOffsetSameInstant(ZoneOffset.UTC)) + "\"}");
    }

    /**
     * The route a path matches among `patterns` (contract::routes::match_path):
     * {pattern, id segment or null}, or null. A `{id}` segment stands for any
     * one non-empty segment.
     */
    static String[] match(String path, String[] patterns) {
        String[] given = path.split("/", -1);
        for (String pattern : patterns) {
            String[] wanted = pattern.split("/", -1);
            if (wanted.length != given.length) {
                continue;
            }
            String id = null;
            boolean same = true;
            for (int i = 0; i < wanted.length && same; i++) {
                if (wanted[i].equals("{id}") && !given[i].isEmpty()) {
                    id = given[i];
                } else if (!wanted[i].equals(given[i])) {
                    same = false;
                }
            }
            if (same) {
                return new String[] {pattern, id};
            }
        }
        return null;
    }

    /** Every route here is a GET route, which answers HEAD too (RouteSpec::allows). */
    static boolean allows(String method) {
        return method.equals("GET") || method.equals("HEAD");
    }

    /** contract::params::parse_path_id: percent-decoded, then a positive integer. */
    static long parsePathId(String segment) throws BadRequest {
        return parseId(percentDecode(segment));
    }

    static long parseId(String raw) throws BadRequest {
        BadRequest invalid = new BadRequest("id must be a positive integer, got " + debugQuoted(raw));
        if (raw.isEmpty() || !allDigits(raw)) {
            throw invalid;
        }
        try {
            long id = Long.parseLong(raw);
            if (id < 1) {
                throw invalid;
            }
            return id;
        } catch (NumberFormatException e) {
            throw invalid;
        }
    }

    /** contract::params::parse_cpu_n: the first n= pair of the raw query wins. */
    static long parseCpuN(String query) throws BadRequest {
        String raw = null;
        for (String pair : (query == null ? "" : query).split("&", -1)) {
            if (pair.startsWith("n=")) {
                raw = pair.substring(2);
                break;
            }
        }
        if (raw == null) {
            return DEFAULT_CPU_N;
        }
        BadRequest invalid = new BadRequest(
                "n must be an integer from 1 to " + MAX_CPU_N + ", got " + debugQuoted(raw));
        if (raw.isEmpty() || !allDigits(raw)) {
            throw invalid;
        }
        try {
            long n = Long.parseLong(raw);
            if (n < 1 || n > MAX_CPU_N) {
                throw invalid;
            }
            return n;
        } catch (NumberFormatException e) {
            throw invalid;
        }
    }

    private static boolean allDigits(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static int hex(byte b) {
        return Character.digit((char) (b & 0xff), 16);
    }

    /** contract::params::percent_decode: %XX to its byte; kept as sent when not UTF-8. */
    static String percentDecode(String segment) {
        if (segment.indexOf('%') < 0) {
            return segment;
        }
        byte[] bytes = segment.getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(bytes.length);
        int i = 0;
        while (i < bytes.length) {
            if (bytes[i] == '%' && i + 2 < bytes.length
                    && hex(bytes[i + 1]) >= 0 && hex(bytes[i + 2]) >= 0) {
                out.put((byte) (hex(bytes[i + 1]) * 16 + hex(bytes[i + 2])));
                i += 3;
            } else {
                out.put(bytes[i]);
                i += 1;
            }
        }
        out.flip();
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(out)
                    .toString();
        } catch (CharacterCodingException e) {
            return segment;
        }
    }

    /** A string as Rust's {:?} writes it in the contract's messages. */
    static String debugQuoted(String raw) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                case '\0': b.append("\\0"); break;
                default:
                    if (c < 0x20 || c == 0x7f) {
                        b.append("\\u{").append(Integer.toHexString(c)).append('}');
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.append('"').toString();
    }

    /** A JSON string as serde_json writes it. */
    static String jsonString(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\b': b.append("\\b"); break;
                case '\f': b.append("\\f"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.append('"').toString();
    }

    /**
     * A finite double as serde_json writes it (ryu): the shortest digits that
     * read back as the same double, in plain notation from 1e-5 to below 1e16.
     */
    static String jsonNumber(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return "null";
        }
        if (d == 0.0) {
            return (1.0 / d < 0) ? "-0.0" : "0.0";
        }
        BigDecimal exact = new BigDecimal(d);
        BigDecimal shortest = exact;
        for (int p = 1; p <= 17; p++) {
            BigDecimal r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
            if (r.doubleValue() == d) {
                shortest = r;
                break;
            }
        }
        BigDecimal abs = shortest.abs().stripTrailingZeros();
        String digits = abs.unscaledValue().toString();
        int length = digits.length();
        int k = -abs.scale();
        int kk = length + k;
        StringBuilder b = new StringBuilder(d < 0 ? "-" : "");
        if (k >= 0 && kk <= 16) {
            b.append(digits);
            for (int i = 0; i < k; i++) {
                b.append('0');
            }
            b.append(".0");
        } else if (kk > 0 && kk <= 16) {
            b.append(digits, 0, kk).append('.').append(digits, kk, length);
        } else if (kk > -5 && kk <= 0) {
            b.append("0.");
            for (int i = 0; i < -kk; i++) {
                b.append('0');
            }
            b.append(digits);
        } else if (length == 1) {
            b.append(digits).append('e').append(kk - 1);
        } else {
            b.append(digits.charAt(0)).append('.').append(digits, 1, length).append('e').append(kk - 1);
        }
        return b.toString();
    }
}
