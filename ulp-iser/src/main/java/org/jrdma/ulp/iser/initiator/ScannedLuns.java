package org.jrdma.ulp.iser.initiator;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** The disks a session's scan found (sd's view: capacity and block length per LUN) and the checks I/O makes. */
final class ScannedLuns {
    static final ScannedLuns NONE = new ScannedLuns(List.of());
    private final List<LunScan.LunInfo> disks;

    ScannedLuns(List<LunScan.LunInfo> disks) {
        this.disks = List.copyOf(disks);
    }

    List<Integer> numbers() {
        List<Integer> out = new ArrayList<>();
        disks.forEach(l -> out.add(l.lun()));
        return out;
    }

    LunScan.LunInfo info(int lun) {
        for (LunScan.LunInfo l : disks) {
            if (l.lun() == lun) {
                return l;
            }
        }
        throw new IllegalArgumentException("LUN " + lun + " is not a disk of this session (LUNs " + numbers() + ")");
    }

    /** The caller's bytes of an I/O of {@code blocks} blocks, checked against the LUN and the buffer. */
    ByteBuffer callerBytes(int lun, int blocks, ByteBuffer b) {
        long bytes = (long) blocks * info(lun).blockSize();
        if (blocks < 1 || bytes > b.remaining()) {
            throw new IllegalArgumentException(blocks + " blocks of LUN " + lun + " need " + bytes
                    + " bytes, the buffer has " + b.remaining());
        }
        return b.duplicate().limit(b.position() + (int) bytes);
    }
}
