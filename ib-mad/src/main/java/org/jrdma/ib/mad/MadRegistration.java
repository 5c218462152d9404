package org.jrdma.ib.mad;

import java.util.Arrays;

/**
 * {@code struct ib_mad_reg_req}: the unsolicited MADs an agent claims, by management class, class
 * version and methods. Two agents on one port cannot claim the same (class, version, method).
 *
 * @param mgmtClass   the management class
 * @param classVersion the class version
 * @param methods     the request methods claimed (0x00..0x7f)
 */
public record MadRegistration(int mgmtClass, int classVersion, int... methods) {
    public MadRegistration {
        if (mgmtClass < 0 || mgmtClass > 0xff || classVersion < 0 || classVersion > 0xff) {
            throw new IllegalArgumentException("class 0x" + Integer.toHexString(mgmtClass) + " version " + classVersion);
        }
        methods = methods.clone();
        for (int m : methods) {
            if (m < 0 || m >= Mad.METHOD_RESP) {
                throw new IllegalArgumentException("not a request method: 0x" + Integer.toHexString(m));
            }
        }
    }

    @Override
    public int[] methods() {
        return methods.clone();
    }

    @Override
    public String toString() {
        return String.format("class 0x%02x version %d methods %s", mgmtClass, classVersion, Arrays.toString(methods));
    }
}
