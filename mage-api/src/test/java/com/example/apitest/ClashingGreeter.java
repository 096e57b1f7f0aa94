package com.example.apitest;

import org.magejvm.api.plugin.Provider;

/** A service type whose services file declares two providers with the same id. */
public interface ClashingGreeter extends Provider {}
