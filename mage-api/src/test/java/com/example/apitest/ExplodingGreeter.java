package com.example.apitest;

import org.magejvm.api.plugin.Provider;

/** A service type whose only provider throws from its constructor. */
public interface ExplodingGreeter extends Provider {}
