package org.jrdma.ulp.iser.scsi;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The SBC-3 block commands on a LUN's backstore (LIO target_core_sbc.c + the rd/fileio execute paths): READ,
 * WRITE, VERIFY, SYNCHRONIZE CACHE, WRITE SAME, READ CAPACITY(10/16).
 *
 * <p>Transfer length against EDTL follows LIO's target_cmd_size_check: a READ whose EDTL is shorter than the CDB
 * asks (overflow) reads only the EDTL's bytes and reports the full length as produced, so the transport sends
 * EDTL bytes and an overflow residual; a longer EDTL (underflow) sends what the CDB asks with an underflow
 * residual. A WRITE whose EDTL differs from the CDB's transfer length, or whose data-out holds fewer bytes, is
 * refused with INVALID FIELD IN COMMAND INFORMATION UNIT, as LIO refuses "underflow/overflow for WRITE data
 * CDB".
 */
final class BlockCommands {
    /** MAXIMUM TRANSFER LENGTH of VPD 0xb0 (LIO's default fabric_max_sectors: 8192 blocks). */
    static final int MAX_TRANSFER_BLOCKS = 8192;
    /** MAXIMUM WRITE SAME LENGTH of VPD 0xb0. */
    static final long MAX_WRITE_SAME_BLOCKS = 1L << 22;

    private BlockCommands() {
    }

    /** READ(6/10/12/16). */
    static int read(Command c) throws CheckCondition, IOException {
        Cdb cdb = c.cdb;
        int blocks = transfer(c);
        int bs = c.lun.blockSize();
        int produced = blocks * bs;
        int room = Math.min(produced, c.dataInRoom());
        int whole = room / bs * bs;
        long offset = cdb.lba() * bs;
        if (whole > 0) {
            c.lun.backstore().read(offset, c.dataIn(whole));
        }
        if (room > whole) { // EDTL not a multiple of the block size: the partial block through a copy
            ByteBuffer block = ByteBuffer.allocate(bs);
            c.lun.backstore().read(offset + whole, block);
            c.dataIn(room).position(whole).put(block.array(), 0, room - whole);
        }
        c.lun.countRead(room);
        return produced;
    }

    /** WRITE(6/10/12/16), FUA honoured with a flush. */
    static int write(Command c) throws CheckCondition, IOException {
        Cdb cdb = c.cdb;
        int blocks = transfer(c);
        long bytes = (long) blocks * c.lun.blockSize();
        ByteBuffer data = c.dataOut();
        if (c.edtl() != bytes || data.remaining() < bytes) {
            throw new CheckCondition(Sense.INVALID_FIELD_IN_COMMAND_IU);
        }
        if (blocks > 0) {
            c.lun.backstore().write(cdb.lba() * c.lun.blockSize(), data.limit((int) bytes));
            if (cdb.fua()) {
                c.lun.backstore().flush();
            }
            c.lun.countWrite(bytes);
        }
        return 0;
    }

    /** VERIFY(10/16): BYTCHK 0 checks the range and succeeds (the medium cannot be unreadable). */
    static int verify(Command c) throws CheckCondition {
        Cdb cdb = c.cdb;
        if ((cdb.u8(1) & 0x06) != 0) {
            throw CheckCondition.cdbField(1, 2); // BYTCHK: comparing data-out is not supported
        }
        checkRange(c, cdb.lba(), cdb.transferLength());
        return 0;
    }

    /** SYNCHRONIZE CACHE(10/16): flushes the whole backstore; the range must still be valid. */
    static int synchronizeCache(Command c) throws CheckCondition, IOException {
        Cdb cdb = c.cdb;
        long blocks = cdb.transferLength();
        // NUMBER OF LOGICAL BLOCKS 0 means "to the end of the medium"
        checkRange(c, cdb.lba(), blocks == 0 ? Math.max(0, c.lun.blocks() - cdb.lba()) : blocks);
        c.lun.backstore().flush();
        return 0;
    }

    /**
     * WRITE SAME(10/16): one block of data-out written over the range, or with the UNMAP bit on a thin LUN and a
     * zero block, a discard (LIO's sbc_execute_write_same_unmap); NDOB (16 only) means a zero block without
     * data-out.
     */
    static int writeSame(Command c) throws CheckCondition, IOException {
        Cdb cdb = c.cdb;
        if ((cdb.u8(1) & 0xe0) != 0) {
            throw CheckCondition.cdbField(1, 7); // WRPROTECT: no protection information
        }
        boolean unmap = cdb.bit(1, 3);
        boolean ndob = cdb.format() == Cdb.Format.SIXTEEN && cdb.bit(1, 0);
        long lba = cdb.lba();
        long blocks = cdb.transferLength();
        if (blocks == 0) {
            throw CheckCondition.cdbField(cdb.format().lengthOffset, -1); // WSNZ=1
        }
        if (blocks > MAX_WRITE_SAME_BLOCKS) {
            throw CheckCondition.cdbField(cdb.format().lengthOffset, -1);
        }
        checkRange(c, lba, blocks);
        int bs = c.lun.blockSize();
        byte[] block = new byte[bs];
        if (!ndob) {
            ByteBuffer data = c.dataOut();
            if (c.edtl() != bs || data.remaining() < bs) {
                throw new CheckCondition(Sense.INVALID_FIELD_IN_COMMAND_IU);
            }
            data.get(block);
        }
        Backstore store = c.lun.backstore();
        if (unmap && store.thinProvisioned() && isZero(block)) {
            store.discard(lba * bs, blocks * bs);
            return 0;
        }
        ByteBuffer run = repeat(block, (int) Math.min(blocks, 128));
        long blocksPerRun = run.capacity() / bs;
        for (long at = 0; at < blocks; at += blocksPerRun) {
            long n = Math.min(blocksPerRun, blocks - at);
            store.write((lba + at) * bs, run.clear().limit((int) (n * bs)));
        }
        c.lun.countWrite(blocks * bs);
        return 0;
    }

    /** READ CAPACITY(10): last LBA, 0xFFFFFFFF when it does not fit (use READ CAPACITY(16)). */
    static int readCapacity10(Command c) {
        byte[] b = new byte[8];
        long last = c.lun.blocks() - 1;
        VpdPage.put(b, 0, 4, Math.min(last, 0xffff_ffffL));
        VpdPage.put(b, 4, 4, c.lun.blockSize());
        return c.respond(b, b.length);
    }

    /** READ CAPACITY(16) (SBC-3 5.16): last LBA, block length, LBPME/LBPRZ for a thin LUN. */
    static int readCapacity16(Command c) {
        byte[] b = new byte[32];
        VpdPage.put(b, 0, 8, c.lun.blocks() - 1);
        VpdPage.put(b, 8, 4, c.lun.blockSize());
        if (c.lun.backstore().thinProvisioned()) {
            b[14] = (byte) 0xc0; // LBPME, LBPRZ
        }
        return c.respond(b, (int) Math.min(Integer.MAX_VALUE, c.cdb.u32(10)));
    }

    /**
     * Validates a READ/WRITE CDB: no protection information (RDPROTECT/WRPROTECT, byte 1 bits 7-5, in all but
     * the 6-byte form), range inside the LUN, length within MAXIMUM TRANSFER LENGTH. Returns the block count.
     */
    private static int transfer(Command c) throws CheckCondition {
        Cdb cdb = c.cdb;
        if (cdb.format() != Cdb.Format.SIX && (cdb.u8(1) & 0xe0) != 0) {
            throw CheckCondition.cdbField(1, 7); // RDPROTECT/WRPROTECT: no protection information
        }
        long blocks = cdb.transferLength();
        checkRange(c, cdb.lba(), blocks);
        if (blocks > MAX_TRANSFER_BLOCKS) {
            throw CheckCondition.cdbField(cdb.format().lengthOffset, -1);
        }
        return (int) blocks;
    }

    /**
     * LOGICAL BLOCK ADDRESS OUT OF RANGE unless lba..lba+blocks-1 lies inside the LUN (the LBA unsigned); the LBA
     * must name a block even when no block is transferred (stricter than LIO, which lets LBA = capacity pass).
     */
    static void checkRange(Command c, long lba, long blocks) throws CheckCondition {
        long capacity = c.lun.blocks();
        if (lba < 0 || blocks < 0 || lba >= capacity || blocks > capacity - lba) {
            throw new CheckCondition(Sense.LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
        }
    }

    private static boolean isZero(byte[] block) {
        for (byte b : block) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static ByteBuffer repeat(byte[] block, int times) {
        ByteBuffer run = ByteBuffer.allocate(block.length * times);
        for (int i = 0; i < times; i++) {
            run.put(block);
        }
        return run.flip();
    }
}
