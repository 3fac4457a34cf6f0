// The calibration twin of async-server: Netty 4.1, one event loop per core
// serving every connection, as WebFlux runs on Reactor Netty. Nothing here
// may block a loop thread: /posts/{id} schedules its answer 300 ms later on
// the connection's loop (Mono.delay's timer, never a sleep), /cpu runs the
// loop inline on the event loop (the deliberately wrong variant, as ours),
// and /cpu/rayon hands the loop to a pool of one thread per core and
// writes the answer when it is done (WebFlux's publishOn(parallel())).
//
// Flags: --bind host:port, --workers N (event-loop threads; default: the
// cores). /metrics: the request counters, the JIT's and the collectors'
// time (JvmMetrics).

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

public final class NettyServer {
    /** The routes this server has, in the contract table's order. */
    static final String[] ROUTES = {"/health", "/cpu", "/cpu/rayon", "/posts/{id}", "/metrics"};

    public static void main(String[] args) throws Exception {
        Flags f;
        try {
            f = Flags.parse(args, Set.of("--bind", "--workers"), Set.of());
        } catch (IllegalArgumentException e) {
            System.err.println("netty: " + e.getMessage());
            System.exit(2);
            return;
        }
        String[] bind = Flags.hostPort(f.get("--bind", "127.0.0.1:8091"));
        int cores = Runtime.getRuntime().availableProcessors();
        int workers = f.intOf("--workers", cores);
        ExecutorService cpuPool = Executors.newFixedThreadPool(cores, new DefaultThreadFactory("cpu-pool"));
        Metrics metrics = new Metrics("netty");
        // One group: the same loops accept connections and serve them.
        EventLoopGroup loops = new NioEventLoopGroup(workers, new DefaultThreadFactory("event-loop"));
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loops)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(
                                new HttpServerCodec(),
                                new HttpObjectAggregator(64 * 1024),
                                new Handler(metrics, cpuPool));
                    }
                });
        Channel server = bootstrap.bind(bind[0], Integer.parseInt(bind[1])).sync().channel();
        System.out.println("netty: listening on " + bind[0] + ":" + bind[1] + ", " + workers
                + " event-loop threads, a CPU pool of " + cores + ", Java " + Runtime.version());
        System.out.flush();
        server.closeFuture().sync();
    }

    /** Every route, on the event loop of the request's connection. */
    static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final Metrics metrics;
        private final ExecutorService cpuPool;

        Handler(Metrics metrics, ExecutorService cpuPool) {
            this.metrics = metrics;
            this.cpuPool = cpuPool;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            metrics.started();
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            boolean head = req.method().name().equals("HEAD");
            if (req.decoderResult().isFailure()) {
                respond(ctx, Contract.UNMATCHED, Contract.error(400, "malformed request"), false, head);
                return;
            }
            String uri = req.uri();
            int q = uri.indexOf('?');
            String path = q < 0 ? uri : uri.substring(0, q);
            String query = q < 0 ? null : uri.substring(q + 1);
            String[] m = Contract.match(path, ROUTES);
            if (m == null) {
                respond(ctx, Contract.UNMATCHED, Contract.noRoute(), keepAlive, head);
                return;
            }
            String route = m[0];
            if (!Contract.allows(req.method().name())) {
                respond(ctx, route, Contract.methodNotAllowed(), keepAlive, head);
                return;
            }
            try {
                switch (route) {
                    case "/health":
                        respond(ctx, route, Contract.health(), keepAlive, head);
                        break;
                    case "/cpu":
                        // Inline: the loop computes, and every connection on it waits.
                        respond(ctx, route, Contract.cpu(Contract.parseCpuN(query)), keepAlive, head);
                        break;
                    case "/cpu/rayon": {
                        long n = Contract.parseCpuN(query);
                        cpuPool.execute(() -> {
                            Contract.Answer a = Contract.cpu(n);
                            ctx.executor().execute(() -> respond(ctx, route, a, keepAlive, head));
                        });
                        break;
                    }
                    case "/posts/{id}": {
                        long id = Contract.parsePathId(m[1]);
                        // A timer on this connection's loop: no thread waits.
                        ctx.executor().schedule(
                                () -> respond(ctx, route, Contract.post(id), keepAlive, head),
                                Contract.POST_DELAY_MS, TimeUnit.MILLISECONDS);
                        break;
                    }
                    case "/metrics":
                        respond(ctx, route, Contract.text(metricsText()), keepAlive, head);
                        break;
                    default:
                        respond(ctx, route, Contract.noRoute(), keepAlive, head);
                }
            } catch (Contract.BadRequest e) {
                respond(ctx, route, e.answer(), keepAlive, head);
            }
        }

        /** The request counters, then the JIT's and the collectors' time. */
        private String metricsText() {
            StringBuilder b = new StringBuilder(metrics.render());
            JvmMetrics.render(b, metrics.server());
            return b.toString();
        }

        private void respond(ChannelHandlerContext ctx, String route, Contract.Answer a, boolean keepAlive,
                boolean head) {
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(a.status),
                    head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(a.body));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, a.contentType);
            r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, a.body.length);
            if (a.allow != null) {
                r.headers().set(HttpHeaderNames.ALLOW, a.allow);
            }
            if (!keepAlive) {
                r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
            ChannelFuture written = ctx.writeAndFlush(r);
            if (!keepAlive) {
                written.addListener(ChannelFutureListener.CLOSE);
            }
            metrics.finished(route, a.status);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
