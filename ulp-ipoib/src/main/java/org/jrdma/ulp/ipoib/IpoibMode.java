package org.jrdma.ulp.ipoib;

/** {@code /sys/class/net/ibN/mode}: UD for everything, or RC connections to peers that advertise them (RFC 4755). */
public enum IpoibMode {
    DATAGRAM("datagram"), CONNECTED("connected");

    private final String sysfs;

    IpoibMode(String sysfs) {
        this.sysfs = sysfs;
    }

    /** The word {@code /sys/class/net/ibN/mode} and {@code ip -d link} show. */
    public String sysfs() {
        return sysfs;
    }

    /** The mode a word names ({@code datagram}, {@code connected}), or null. */
    public static IpoibMode of(String word) {
        for (IpoibMode m : values()) {
            if (m.sysfs.equals(word)) {
                return m;
            }
        }
        return null;
    }
}
