// The Java client of test_sandbox_enforce_java.c: fetches each URL among
// its arguments with HttpURLConnection, the JDK's own, which takes the
// proxy and the trust from the system properties lcsb puts in
// JAVA_TOOL_OPTIONS. For each, one line "URL: STATUS proxy=true|false" and
// the body, or "URL: failed: EXCEPTION"; exit 1 when one failed. Options,
// applied as they come, before the first fetch:
//   --default-trust  forget the truststore JAVA_TOOL_OPTIONS named (the JDK's own)
//   --no-proxy       forget the proxy JAVA_TOOL_OPTIONS named
//   --trust=PEM      trust PEM's certificate alone (a server lcsb does not intercept)
//   --print=NAME     print "NAME=VALUE" of a system property
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

public class Fetch {
    public static void main(String[] args) throws Exception {
        boolean failed = false;
        for (String arg : args) {
            if (arg.equals("--default-trust")) {
                for (String p : new String[] {"trustStore", "trustStoreType", "trustStorePassword"})
                    System.clearProperty("javax.net.ssl." + p);
            } else if (arg.equals("--no-proxy")) {
                for (String p : new String[] {"http.proxyHost", "https.proxyHost"})
                    System.clearProperty(p);
            } else if (arg.startsWith("--trust=")) {
                trust(arg.substring(8));
            } else if (arg.startsWith("--print=")) {
                String name = arg.substring(8);
                System.out.println(name + "=" + System.getProperty(name));
            } else {
                failed |= !fetch(arg);
            }
        }
        System.exit(failed ? 1 : 0);
    }

    static boolean fetch(String url) {
        try {
            HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
            c.setConnectTimeout(10000);
            c.setReadTimeout(10000);
            int status = c.getResponseCode();
            InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream();
            String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            System.out.println(url + ": " + status + " proxy=" + c.usingProxy());
            System.out.print(body);
            return status < 400;
        } catch (IOException e) {
            System.out.println(url + ": failed: " + e);
            return false;
        }
    }

    static void trust(String pem) throws Exception {
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        ks.load(null, null);
        try (FileInputStream in = new FileInputStream(pem)) {
            ks.setCertificateEntry("server",
                    CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf =
                TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        HttpsURLConnection.setDefaultSSLSocketFactory(ctx.getSocketFactory());
    }
}
