package dev.loopflow.testkit;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Creates the JDK {@link HttpServer}s of the test kit, on 127.0.0.1 and configured so that they never close a
 * keep-alive connection under a client that may reuse it.
 *
 * <p>Why: the JDK's HTTP client keeps a connection alive after each reply and sends the next request on it, and it
 * never retries a POST that fails on a reused connection. The JDK server, by default, closes a connection as soon
 * as its reply is sent when 200 others are already idle ({@code sun.net.httpserver.maxIdleConnections}), and closes
 * any connection idle for 30 s ({@code sun.net.httpserver.idleInterval}), the client's own keep-alive time. A client
 * that picks such a connection before it has seen the close gets "header parser received no bytes": a burst of a few
 * hundred calls that no longer starts all at once (any loaded machine) lost calls that way. So the fakes keep every
 * idle connection and leave closing to the client: no idle cap, and an idle time well past the client's.
 *
 * <p>The JDK server reads these properties once per JVM, when its first server starts; they are set here before
 * that unless the JVM was started with its own values. The build also passes them to every test JVM (the parent
 * pom's test arguments), so a test that starts a plain JDK server before any fake does not fix them at the defaults.
 */
final class LoopbackHttpServer {

    static final String MAX_IDLE_CONNECTIONS = "sun.net.httpserver.maxIdleConnections";
    static final String IDLE_INTERVAL_SECONDS = "sun.net.httpserver.idleInterval";

    static {
        // Far above any benchmark's concurrency, and far above the JDK client's 30 s keep-alive.
        setUnlessGiven(MAX_IDLE_CONNECTIONS, "100000");
        setUnlessGiven(IDLE_INTERVAL_SECONDS, "600");
    }

    private LoopbackHttpServer() {}

    /** A server bound to 127.0.0.1 on a free port, not started; {@code what} names it in a bind error. */
    static HttpServer create(int backlog, String what) {
        try {
            InetAddress loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
            return HttpServer.create(new InetSocketAddress(loopback, 0), backlog);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind " + what + " to 127.0.0.1", e);
        }
    }

    private static void setUnlessGiven(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }
}
