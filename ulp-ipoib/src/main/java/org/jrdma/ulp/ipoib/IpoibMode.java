package org.jrdma.ulp.ipoib;

/** {@code /sys/class/net/ibN/mode}. Only datagram mode exists so far. */
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
}
