// LocalStack starts DynamoDB Local with -javaagent:<dir>/ddb-local-loader-0.1.jar, a patch it
// normally downloads (it lifts the 20-GSI limit). Offline we compile this do-nothing agent
// instead: the JVM only needs a jar whose manifest names a Premain-Class.
public class NoopAgent {
    public static void premain(String args, java.lang.instrument.Instrumentation inst) {
    }
}
