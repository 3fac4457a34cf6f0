// The calibration servers' command line: `--name value` flags and switches,
// each server naming the ones it takes; anything else is refused, so a
// flag bench passes and a server does not know fails at start-up.

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

final class Flags {
    private final Map<String, String> values = new HashMap<>();
    private final Set<String> switches = new HashSet<>();

    static Flags parse(String[] args, Set<String> valued, Set<String> switches) {
        Flags f = new Flags();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (switches.contains(a)) {
                f.switches.add(a);
            } else if (valued.contains(a) && i + 1 < args.length) {
                f.values.put(a, args[++i]);
            } else {
                throw new IllegalArgumentException("unknown or incomplete flag " + a
                        + "; expected " + valued + " with a value, or " + switches);
            }
        }
        return f;
    }

    String get(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    int intOf(String name, int fallback) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, got " + v);
        }
    }

    boolean has(String name) {
        return switches.contains(name);
    }

    /** "127.0.0.1:8080" as {host, port}. */
    static String[] hostPort(String bind) {
        int colon = bind.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("--bind must be host:port, got " + bind);
        }
        return new String[] {bind.substring(0, colon), bind.substring(colon + 1)};
    }
}
