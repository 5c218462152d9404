package org.jrdma.ulp.iser.initiator;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.jrdma.ulp.iser.IserIoException;

/**
 * The scan Linux's SCSI midlayer and sd do after a login: REPORT LUNS, then for each LUN INQUIRY (peripheral
 * qualifier 0 and device type 0x00, direct access, are disks) and READ CAPACITY(16). A UNIT ATTENTION (the
 * target's power-on/reset report after a login) is retried, as the midlayer does.
 */
final class LunScan {
    /** A disk: its capacity in blocks and its logical block length. */
    record LunInfo(int lun, long blocks, int blockSize) {
    }

    private static final int REPORT_LUNS_LENGTH = 8 + 8 * 256;
    private static final int INQUIRY_LENGTH = 36;
    private static final int READ_CAPACITY_LENGTH = 32;
    private static final int UNIT_ATTENTION = 6;
    private static final int RETRIES = 3;

    private LunScan() {
    }

    static CompletableFuture<List<LunInfo>> scan(Function<IserTask, CompletableFuture<Integer>> submit) {
        ByteBuffer report = ByteBuffer.allocate(REPORT_LUNS_LENGTH);
        return command(submit, () -> IserTask.dataIn(0, ScsiCdb.reportLuns(REPORT_LUNS_LENGTH), report, false))
                .thenCompose(n -> {
                    CompletableFuture<List<LunInfo>> chain = CompletableFuture.completedFuture(new ArrayList<>());
                    for (int lun : reportedLuns(report, n)) {
                        chain = chain.thenCompose(found -> probe(submit, lun).thenApply(info -> {
                            if (info != null) {
                                found.add(info);
                            }
                            return found;
                        }));
                    }
                    return chain.thenApply(found -> {
                        found.sort((a, b) -> Integer.compare(a.lun(), b.lun()));
                        return List.copyOf(found);
                    });
                });
    }

    /** The LUN list of a REPORT LUNS answer (8-byte header: list length; then 8 bytes per LUN). */
    static List<Integer> reportedLuns(ByteBuffer data, int length) {
        List<Integer> luns = new ArrayList<>();
        if (length < 8) {
            return luns;
        }
        int listBytes = Math.min(data.getInt(0), length - 8);
        for (int off = 8; off + 8 <= 8 + listBytes; off += 8) {
            int lun = ScsiCdb.lunOf(data.getLong(off));
            if (lun >= 0) {
                luns.add(lun);
            }
        }
        return luns;
    }

    private static CompletableFuture<LunInfo> probe(Function<IserTask, CompletableFuture<Integer>> submit, int lun) {
        ByteBuffer inq = ByteBuffer.allocate(INQUIRY_LENGTH);
        return command(submit, () -> IserTask.dataIn(lun, ScsiCdb.inquiry(INQUIRY_LENGTH), inq, false))
                .thenCompose(n -> {
                    if (n < 1 || (inq.get(0) & 0xff) != 0x00) { // qualifier 0, direct-access block device
                        return CompletableFuture.completedFuture(null);
                    }
                    ByteBuffer cap = ByteBuffer.allocate(READ_CAPACITY_LENGTH);
                    return command(submit, () -> IserTask.dataIn(lun, ScsiCdb.readCapacity16(READ_CAPACITY_LENGTH),
                            cap, false)).thenApply(m -> new LunInfo(lun, cap.getLong(0) + 1, cap.getInt(8)));
                });
    }

    /** Runs a command, again (a fresh task) after a UNIT ATTENTION, up to {@value #RETRIES} times. */
    private static CompletableFuture<Integer> command(Function<IserTask, CompletableFuture<Integer>> submit,
            java.util.function.Supplier<IserTask> task) {
        CompletableFuture<Integer> f = submit.apply(task.get());
        for (int i = 0; i < RETRIES; i++) {
            f = f.exceptionallyCompose(e -> unwrap(e) instanceof IserIoException x && x.senseKey() == UNIT_ATTENTION
                    ? submit.apply(task.get()) : CompletableFuture.failedFuture(e));
        }
        return f;
    }

    static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
