package org.jrdma.ib.core;

/** One tracked resource: its kind, id, owner and a one-line summary ({@code rdma resource show}). */
public record ResourceInfo(ResourceType type, int id, String owner, String summary) {
}
