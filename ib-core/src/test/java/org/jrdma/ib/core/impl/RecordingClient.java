package org.jrdma.ib.core.impl;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;

/** A client that records its callbacks as "add:dev" / "remove:dev" and checks the client data. */
class RecordingClient implements IbClient {
    final String name;
    final List<String> calls;
    final List<String> errors = new CopyOnWriteArrayList<>();

    RecordingClient(String name, List<String> calls) {
        this.name = name;
        this.calls = calls;
    }

    RecordingClient(String name) {
        this(name, new CopyOnWriteArrayList<>());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void add(IbDevice device) {
        calls.add(name + " add:" + device.name());
        device.setClientData(this, name + "@" + device.name());
    }

    @Override
    public void remove(IbDevice device, Object clientData) {
        calls.add(name + " remove:" + device.name());
        if (!(name + "@" + device.name()).equals(clientData)) {
            errors.add("remove of " + device.name() + " got client data " + clientData);
        }
    }
}
